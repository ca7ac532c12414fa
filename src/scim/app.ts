/**
 * The SCIM server: `/scim/v2/{directoryId}` per directory. Order matters:
 * the request log's recorder (it sees every answer) → auth (before any body is read) → the directory's share of concurrent requests (429 beyond) → body parser with the configured limit → our /Users and /Groups
 * (store-backed, indexed, paged), the root search, the discovery endpoints, /Me and /Bulk → SCIM 404 for
 * anything else → the SCIM error renderer (never an HTML page or a stack trace). Every route is ours:
 * no request reaches a scimmy-routers default (SCIMMY itself validates bodies and applies PATCH).
 *
 * The server (src/roles/server.ts) mounts the directory router on its own app: an app mounted in another
 * switches each request's prototype on the way in and back on the way out (express-server.ts says why
 * that costs). `createScimApp` wraps the same router in an app of its own, for tests and tools.
 */
import express, { type Express, type RequestHandler, type Router } from "express";
import type { Logger } from "pino";
import type { Config } from "../config/schema";
import type { RedisConnection } from "../store/connection";
import { GroupStore, UserStore, type WriteOptions } from "../store";
import { MinuteCounters } from "../activity/minute-counters";
import { ActivityStore } from "../activity/activity-store";
import { AuthFailureKeys } from "../auth/auth-failure-keys";
import { idpActivity } from "../activity/idp-activity";
import { AuthFailureLimiter } from "../auth/auth-failures";
import { DirectoryRegistry } from "../directories/registry";
import { directoryAuth } from "../auth/scim-auth";
import type { ScimContext, ScimSettings } from "./context";
import { ScimError, scimErrorHandler, sendScimError } from "./errors";
import { scimJsonBody } from "./json-body";
import { collapseSlashes } from "./path-slashes";
import { LostCreateStore } from "./lost-creates/lost-create-store";
import { LostCreates } from "./lost-creates/lost-creates";
import { discoveryRouter } from "./discovery/discovery-router";
import { ScanGate } from "./query/scan-gate";
import { RequestShare } from "./fairness/request-share";
import { checkPatchBytes } from "./fairness/patch-operations";
import { CursorCodec } from "./cursor/cursor-codec";
import { CursorKeyStore } from "./cursor/cursor-key-store";
import { SortIndexStore } from "./sorting/sort-index-store";
import { groupsRouter } from "./resources/groups";
import { rootSearchRouter } from "./resources/root-search";
import { usersRouter } from "./resources/users";
import { setupScimmy } from "./schemas";
import { declaredExtensions, withDeclaredExtensions } from "./extensions/declared";
import { RequestLogStore } from "./request-log/request-log-store";
import { keepRequestBody, requestRecorder } from "./request-log/request-recorder";
import { RequestLogWriter } from "./request-log/request-log-writer";

export interface ScimAppDeps {
  config: Config;
  users: UserStore;
  groups: GroupStore;
  logger: Logger;
  /** Redis for the failed-authentication counter (defaults to the users store's connection). */
  redis?: RedisConnection;
  /** The directories served, kept current (default: the config file's only). */
  registry?: DirectoryRegistry;
  /** The per-minute counters the IdP's writes add to (default: written at each write, unbuffered). */
  counters?: MinuteCounters;
}

/**
 * The store's write options of a directory (its settings may change at runtime: read per request).
 * Member ids that do not exist are skipped unless the directory is strict: Okta pushes up to 256 members
 * at once and keeps the id of a user removed through another path (IDP-DIALECTS O16), so refusing the
 * batch would fail every push of that group.
 */
function writeOptionsOf(dir: { uniqueness: { externalId: boolean }; strict?: boolean } | undefined): WriteOptions {
  if (!dir) return {};
  return { uniqueExternalId: dir.uniqueness.externalId, skipUnknownMembers: !dir.strict };
}

/** `store` whose write and delete mark `res.locals.scimChanged` when they change the resource. */
function noteChanges<T extends UserStore | GroupStore>(store: T, res: express.Response): T {
  const s = store as unknown as { write(...a: unknown[]): Promise<{ changed: boolean }>; delete(...a: unknown[]): Promise<void> };
  return Object.create(store, {
    write: { value: async (...a: unknown[]) => { const r = await s.write(...a); if (r.changed) res.locals.scimChanged = true; return r; } },
    delete: { value: async (...a: unknown[]) => { await s.delete(...a); res.locals.scimChanged = true; } },
  }) as T;
}

const JSON_TYPES = ["application/scim+json", "application/json", "application/*+json"];

/** Where the directory router is mounted. */
export const SCIM_DIRECTORY_PATH = "/scim/v2/:directoryId";

/** A SCIM 404 for a path no route serves (after every other route of the app). */
export const scimNotFound: RequestHandler = (_req, res) => sendScimError(res, 404, undefined, "Endpoint not found");

/** The SCIM express app for every configured directory: the directory router, the SCIM 404 and the error renderer. */
export function createScimApp(deps: ScimAppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", deps.config.server.trustProxy);
  app.use(collapseSlashes);
  app.use(SCIM_DIRECTORY_PATH, scimDirectoryRouter(deps));
  app.use(scimNotFound);
  app.use(scimErrorHandler(deps.logger, deps.config.server.retryAfterSeconds));
  return app;
}

/**
 * The routes of `/scim/v2/:directoryId` for every configured directory. The app it is mounted on must not
 * make ETags of its own (`app.set("etag", false)`): a SCIM resource's ETag is its version, and a list or
 * an error has none.
 */
export function scimDirectoryRouter({ config, users, groups, logger, redis, registry = DirectoryRegistry.fromConfig(config), counters: sharedCounters }: ScimAppDeps): Router {
  const settings: ScimSettings = {
    maxResults: config.scim.maxResults,
    defaultCount: Math.min(config.scim.defaultCount, config.scim.maxResults),
    maxFilterLength: config.scim.maxFilterLength,
    maxFilterTerms: config.scim.maxFilterTerms,
    maxScanRecords: config.scim.maxScanRecords,
    maxPatchOperations: config.scim.maxPatchOperations,
    maxIdentifierLength: config.scim.maxIdentifierLength,
    heavyGroupMembers: config.scim.largeGroupMembers,
    cursorTimeoutSeconds: config.scim.cursorTimeoutSeconds,
    maxPageMembers: config.scim.maxPageMembers,
  };
  setupScimmy();
  // a directory's own `scim` settings override the process-wide ones (read per request: they may change at runtime)
  const own = (id: string) => registry.get(id)?.dir.scim;
  const scans = new ScanGate((id) => ({
    running: own(id)?.maxConcurrentScans ?? config.scim.maxConcurrentScans,
    queued: own(id)?.maxQueuedScans ?? config.scim.maxQueuedScans,
  }), config.scim.retryAfterSeconds);
  const share = new RequestShare((id) => own(id)?.maxConcurrentRequests ?? config.scim.maxConcurrentRequests, config.scim.retryAfterSeconds);
  const sortIndexes = new SortIndexStore(users.connection, config.redis.keyPrefix);
  const cursors = new CursorCodec(new CursorKeyStore(redis ?? users.connection, config.redis.keyPrefix), config.scim.cursorTimeoutSeconds);
  const publicBase = config.server.publicBaseUrl ?? `http://127.0.0.1:${config.server.port}`;
  const lostCreates = new LostCreates(new LostCreateStore(redis ?? users.connection, config.redis.keyPrefix, users.ack), config.scim.lostCreateSeconds, logger);

  const limiter = new AuthFailureLimiter(redis ?? users.connection, config.auth.maxFailures, config.auth.windowSeconds);
  const dir = express.Router({ mergeParams: true });
  // first: the log records the authentication's answer too
  dir.use(requestRecorder(new RequestLogWriter(new RequestLogStore(redis ?? users.connection, config.redis.keyPrefix), logger), registry, logger));
  dir.use(directoryAuth(registry, limiter, new AuthFailureKeys(config.redis.keyPrefix)));
  dir.use(share.middleware());
  dir.use((req, res, next) => {
    const directoryId = String(req.params.directoryId);
    const dirConfig = registry.get(directoryId)?.dir;
    const ctx: ScimContext = {
      directoryId, base: `${publicBase}/scim/v2/${directoryId}`, settings, scans, cursors, sortIndexes, lostCreates,
      // a write request's stores note whether it changed anything (the activity trail records changes only)
      ...(req.method === "GET" ? { users, groups } : { users: noteChanges(users, res), groups: noteChanges(groups, res) }),
      writeOptions: writeOptionsOf(dirConfig),
      extensions: declaredExtensions(dirConfig?.extensions), strict: dirConfig?.strict ?? false, logger,
    };
    res.locals.scim = ctx;
    // Express 5's req.query is a getter that re-parses on every access; pin one copy (STACK.md §4.1)
    Object.defineProperty(req, "query", { value: { ...req.query }, writable: true, configurable: true, enumerable: true });
    next();
  });
  // a PATCH over scim.maxPatchOperations is refused from its bytes, before the parse it would cost
  dir.use(scimJsonBody(JSON_TYPES, config.server.bodyLimitBytes, (req, buf) => { if (req.method === "PATCH") checkPatchBytes(buf, config.scim.maxPatchOperations); }), keepRequestBody);
  dir.use((req, _res, next) => {
    if (["POST", "PUT", "PATCH"].includes(req.method) && !req.is(JSON_TYPES)) {
      return next(new ScimError(415, undefined, "Content-Type must be application/scim+json or application/json"));
    }
    next();
  });
  // the directory's declared extensions are known to attribute lookups for the rest of the request (extensions/declared.ts)
  dir.use((_req, res, next) => withDeclaredExtensions((res.locals.scim as ScimContext).extensions, next));
  const activity = new ActivityStore(redis ?? users.connection, config.redis.keyPrefix, config.activity.maxEvents, config.activity.retentionDays);
  const counters = sharedCounters ?? new MinuteCounters(redis ?? users.connection, config.redis.keyPrefix);
  dir.use("/Users", idpActivity(activity, "user", counters, logger), usersRouter());
  dir.use("/Groups", idpActivity(activity, "group", counters, logger), groupsRouter());
  dir.use(rootSearchRouter());
  dir.use(discoveryRouter());

  return dir;
}
