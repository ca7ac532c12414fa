/**
 * The admin surface, on its own prefix (`/admin`) and its own token (never a SCIM token). JSON API:
 *   GET  /admin/directories                              every directory: counts by sync status, queue depth,
 *                                                        last successful sync, paused reason, external-user usage, resync
 *   GET  /admin/directories/:id                          one directory
 *   GET  /admin/directories/:id/failed                   failed items with the platform's message (dead letter)
 *   POST /admin/directories/:id/retry                    retry every failed item
 *   POST /admin/directories/:id/items/:kind/:itemId/retry  retry one item (kind: user | group)
 *   POST /admin/directories/:id/groups/:groupId/keep-name  this group keeps its platform name (a same-name
 *                                                        conflict: the group holding it is displaced, keep-name-routes.ts)
 *   POST /admin/directories/:id/resume                   resume a paused directory
 *   POST /admin/directories/:id/resync                   start a full resync (202; 409 while one runs); ?dryRun=true: plan only
 *   GET  /admin/directories/:id/resync                   its progress and final summary
 *   …/resync/plan, …/resync/confirm, …/resync/cancel, …/resync/audit   see resync-routes.ts
 *   POST /admin/ownership/handover                       hand a platform resource to another directory of its account:
 *                                                        {space, resource, to, from?} (src/sync/ownership/ownership-handover.ts);
 *                                                        404 for an unknown directory or a resource nobody manages
 *   GET  /admin/directories/:id/requests[/:requestId]     the directory's SCIM request log (request-log-routes.ts)
 *   GET  /admin/directories/:id/explain?resource=…       why a user or group is (not) on the platform; POST …/sync-now
 *                                                        {resource}: reconcile it now, step by step (explain-routes.ts)
 *   GET  /admin/directories/:id/external-users           embed: the account's external users against the limit,
 *                                                        `warning` at 90% (404 for a workforce directory)
 * Pages (sign in with the admin token): GET /admin/status (overview), /admin/status/<id> (a directory;
 * status-routes.ts), /admin/queues (bull-board, queue-board.ts). A form POST from a page is answered with a
 * redirect to the page of what it changed, with the outcome in words (feedback.ts).
 * A state-changing request authenticated by the sign-in cookie must come from the bridge's own origin and
 * carry the session's form token (src/admin/forgery/); one with the Bearer token needs neither.
 * Wrong admin tokens (header or sign-in form) count as failed authentications per client address, with
 * the SCIM endpoint's limits (auth.maxFailures in auth.windowSeconds): past them a wrong token gets 429
 * with Retry-After. A valid token or session always passes (src/auth/auth-failures.ts).
 */
import express, { type Request, type Response, type Router } from "express";
import { RedisUnavailableError, type RedisConnection } from "../store/connection";
import type { Logger } from "pino";
import type { Config } from "../config/schema";
import type { SyncQueues } from "../sync/admission/queues";
import { resumeDirectory, retryFailed } from "../sync/control/directory-control";
import { operator, resyncRoutes } from "./resync-routes";
import { handOver } from "../sync/ownership/ownership-handover";
import { directoryStatus, failedItems } from "./directory-status";
import { adminErrorHandler } from "./error-handler";
import { createOpsContext, type OpsContext } from "./ops-context";
import { AuthFailureLimiter } from "../auth/auth-failures";
import { AuthFailureKeys } from "../auth/auth-failure-keys";
import type { DirectoryRegistry } from "../directories/registry";
import { directoryAdminRoutes } from "./directory-admin";
import { requestLogPages, requestLogRoutes } from "./request-log-routes";
import { itemApi, itemPages } from "./item-routes";
import { itemHref } from "./item-page";
import { explainPages } from "./explain-page";
import { securityHeaders } from "./security-headers";
import { brakeRoutes } from "./brake-routes";
import { keepNameRoutes } from "./keep-name-routes";
import { explainRoutes } from "./explain-routes";
import { AdminSessions } from "../auth/admin-session";
import { forgeryGuard, requestOrigin } from "./forgery/forgery-guard";
import { directoryHref, loginPage } from "./status-page";
import { statusRoutes } from "./status-routes";
import { queueBoard, boardPageFilter } from "./queue-board";
import { answer, readNotice } from "./feedback";

export interface AdminDeps {
  config: Config;
  redis: RedisConnection;
  queues: SyncQueues;
  /** The directories as they are now (default: the config file's only). */
  registry?: DirectoryRegistry;
  /** Where unexpected errors are logged (their details never go to the client). */
  logger?: Logger;
}

/** JSON endpoints under /admin/directories. */
function directoriesApi(c: OpsContext, logger?: Logger): Router {
  const r = express.Router();
  const knownId: express.RequestParamHandler = (_req, res, next, id: string) => {
    if (!c.registry.get(id)) { res.status(404).json({ error: `unknown directory "${id}"` }); return; }
    next();
  };
  r.param("id", knownId);
  r.get("/", async (_req, res) => {
    res.json(await Promise.all(c.registry.list().map((e) => directoryStatus(c, e.dir.id))));
  });
  r.get("/:id", async (req, res) => { res.json(await directoryStatus(c, req.params.id)); });
  r.get("/:id/failed", async (req, res) => { res.json(await failedItems(c, req.params.id)); });
  r.post("/:id/retry", async (req, res) => {
    const n = await retryFailed(c.state, req.params.id, (kind, id) => c.queues.enqueue(req.params.id, kind, id));
    answer(req, res, 200, { retried: n }, directoryHref(req.params.id), `Retried ${n} failed item(s) of ${req.params.id}: they are queued again.`);
  });
  r.post("/:id/items/:kind/:itemId/retry", async (req, res) => {
    const kind = req.params.kind;
    if (kind !== "user" && kind !== "group") { res.status(400).json({ error: "kind must be user or group" }); return; }
    await retryFailed(c.state, req.params.id, (k, id) => c.queues.enqueue(req.params.id, k, id), [{ kind, id: req.params.itemId }]);
    answer(req, res, 200, { retried: 1 }, itemHref(req.params.id, kind, req.params.itemId), "Retried: the item is queued again.");
  });
  r.post("/:id/resume", async (req, res) => {
    await resumeDirectory(c.queues, c.state, req.params.id);
    answer(req, res, 200, { resumed: req.params.id }, directoryHref(req.params.id), `${req.params.id} resumed: its queued work runs again.`);
  });
  r.use(resyncRoutes(c, knownId, logger));
  r.use(brakeRoutes(c, knownId, logger));
  r.use(keepNameRoutes(c, knownId, logger));
  r.use(explainRoutes(c, knownId, logger));
  r.get("/:id/external-users", async (req, res) => {
    const dir = c.registry.get(req.params.id)!.dir;
    if (!dir.embed) { res.status(404).json({ error: `directory "${dir.id}" is not an embed directory` }); return; }
    res.json(await c.usage.report(dir.platform.baseUrl, dir.embed.externalUserLimit));
  });
  return r;
}

/** The admin router (mount at /admin). */
export function adminRouter({ config, redis, queues, logger, registry }: AdminDeps): Router {
  const c: OpsContext = { ...createOpsContext(config, redis, registry), queues };
  // the same failed-authentication limit as the SCIM endpoint (auth.*), counted apart from it
  const failures = new AuthFailureLimiter(redis, config.auth.maxFailures, config.auth.windowSeconds);
  const keys = new AuthFailureKeys(config.redis.keyPrefix);
  const sessions = new AdminSessions(redis, config.redis.keyPrefix, config.admin.tokenHashes);
  /** Counts a wrong admin token; past the limit answers 429 (page or JSON) and resolves true. */
  const tooManyFailures = async (req: Request, res: Response): Promise<boolean> => {
    const wait = await failures.fail(keys.admin(req.ip ?? "unknown"));
    if (!wait) return false;
    res.setHeader("Retry-After", String(wait));
    securityHeaders()(req, res, () => undefined);
    const message = "Too many failed sign-ins from this address; try again later.";
    if (req.accepts(["json", "html"]) === "html") res.status(429).type("html").send(loginPage(message));
    else res.status(429).json({ error: message });
    return true;
  };
  const r = express.Router();
  // a store that is down is said at once (503 + Retry-After, adminErrorHandler): the connection rides out
  // restarts, so a request sent meanwhile waited, queued, for as long as the outage lasted (the status page
  // and the API hung while SCIM answered 503 in milliseconds)
  r.use((_req, _res, next) => next(redis.status === "ready" ? undefined : new RedisUnavailableError(`the Redis connection is ${redis.status}`)));
  r.use(express.urlencoded({ extended: false, limit: "8kb" }));
  r.use(express.json({ limit: "64kb" }));

  const boardApp = queueBoard(queues, logger);
  const publicBaseUrl = config.server.publicBaseUrl;
  r.use("/queues", securityHeaders(false), sessions.require((_req, res) => res.redirect(303, "/admin/status"), tooManyFailures),
    forgeryGuard({ publicBaseUrl, formToken: false }), boardPageFilter(), boardApp);

  r.use(securityHeaders());
  r.post("/login", async (req, res) => {
    // a sign-in posted by another origin's page would sign the browser in to a session of that page's choosing
    if (requestOrigin(req, publicBaseUrl) === "foreign") { res.status(403).type("html").send(loginPage("Sign in from the bridge's own status page.")); return; }
    const token = typeof req.body?.token === "string" ? req.body.token : undefined;
    if (!sessions.tokenValid(token)) {
      if (await tooManyFailures(req, res)) return;
      res.status(401).type("html").send(loginPage("That token is not an admin token."));
      return;
    }
    await sessions.start(req, res);
    res.redirect(303, "/admin/status");
  });
  const signedIn = sessions.require((_req, res) => { res.status(401).type("html").send(loginPage()); }, tooManyFailures);
  const unforged = forgeryGuard({ publicBaseUrl });
  r.post("/logout", async (req, res, next) => {
    if (typeof (await sessions.identify(req)) === "object") return next();
    res.redirect(303, "/admin/status"); // nobody to sign out
  }, signedIn, unforged, async (req, res) => {
    await sessions.end(req, res);
    res.redirect(303, "/admin/status");
  });
  r.use(signedIn, unforged);
  r.use(readNotice()); // the outcome of the action just taken, on the page it leads to
  r.use(statusRoutes(c));
  r.use("/status", itemPages(c), explainPages(c, logger), requestLogPages(c));
  r.use("/directories", directoryAdminRoutes(c), itemApi(c), requestLogRoutes(c), directoriesApi(c, logger));
  r.post("/ownership/handover", async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const result = await handOver({ config, redis, state: c.state, queues, logger, directory: (id) => c.registry.get(id)?.dir },
      { space: str(b.space) ?? "", resource: str(b.resource) ?? "", to: str(b.to) ?? "", from: str(b.from) }, operator(req));
    if (!result.ok) { res.status(result.status).json({ error: result.error }); return; }
    const { ok: _ok, ...body } = result;
    res.json(body);
  });
  r.use((_req, res) => { res.status(404).json({ error: "not found" }); });
  r.use(adminErrorHandler(logger, config.server.retryAfterSeconds));
  return r;
}
