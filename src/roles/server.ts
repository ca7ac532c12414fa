/**
 * The HTTP side of a process: the SCIM server (`server` role) with the admin API, status page, /healthz,
 * /readyz and /metrics; or, for a `worker`-only process, just the health and metrics endpoints on
 * `metrics.workerPort`. A graceful stop stops accepting, finishes in-flight requests, closes Redis.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { Config } from "../config/schema";
import { adminRouter } from "../admin/app";
import { createOpsContext, type OpsContext } from "../admin/ops-context";
import { metricsHandler } from "./metrics-handler";
import { healthz, readyz, RoleProbe } from "../observability/health";
import type { Metrics } from "../observability/metrics";
import { requestLog } from "../observability/request-log";
import { SCIM_DIRECTORY_PATH, scimDirectoryRouter, scimNotFound } from "../scim/app";
import { collapseSlashes } from "../scim/path-slashes";
import { createExpressServer } from "./express-server";
import { AuthFailureLimiter } from "../auth/auth-failures";
import { startRegistry, type DirectoryRegistry } from "../directories/registry";
import { tokenEndpoint } from "../auth/token-endpoint";
import { scimErrorHandler } from "../scim/errors";
import { GroupStore, largeGroups, ReplicaAck, UserStore, closeConnection, createQueueConnection, createStoreConnection, waitReady, assertRedisSetup } from "../store";
import { MinuteCounters } from "../activity/minute-counters";


/** How often the server writes the IdP's writes per minute (src/store/minute-counters.ts). */
const COUNTER_FLUSH_MS = 1000;

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface ServerOptions {
  metrics?: Metrics;
  /** What /readyz checks beyond Redis (default: a server-only process). */
  probe?: RoleProbe;
}

async function listen(app: Express, host: string, port: number): Promise<{ server: http.Server; url: string; port: number }> {
  const server = createExpressServer(app, { keepAliveTimeout: 65000 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return { server, url: `http://${shown}:${actual}`, port: actual };
}

function closer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  });
}

/** The `directory` label of SCIM requests whose authentication failed. */
const UNAUTHENTICATED = "unauthenticated";

/**
 * Counts SCIM requests by directory, method, status. Only authenticated requests carry their directory: a
 * failed authentication (401, 429) is counted as "unauthenticated" whether the directory exists or not, so
 * the labels of an open /metrics do not tell which guessed ids exist.
 */
function scimMetrics(registry: DirectoryRegistry, m: Metrics): express.RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // read now, where this middleware is mounted: when the answer is sent, req.params are the last route's
    const id = String(req.params.directoryId);
    res.on("finish", () => {
      const directory = res.locals.scimAuthenticated === true && registry.get(id) ? id : UNAUTHENTICATED;
      m.scimRequests.inc({ directory, method: req.method, status: String(res.statusCode) });
      m.scimDuration.observe({ directory, method: req.method }, (performance.now() - started) / 1000);
    });
    next();
  };
}

/** Health and metrics routes shared by both kinds of listener. */
function opsRoutes(app: Express, ops: OpsContext, probe: RoleProbe, metrics?: Metrics): void {
  app.get("/healthz", healthz);
  app.get("/readyz", readyz(ops, probe));
  if (metrics) app.get("/metrics", metricsHandler(ops, metrics));
}

/** Starts the SCIM HTTP server; resolves once it listens. */
export async function startServer(config: Config, logger: Logger, opts: ServerOptions = {}): Promise<RunningServer> {
  const redis = createStoreConnection(config.redis);
  redis.on("error", (err) => logger.debug({ err: { message: err.message } }, "redis connection error"));
  await waitReady(redis, 10000).catch((err: Error) => { redis.disconnect(); throw err; });
  // a missing database or an evicting Redis is refused before anything is written (store/redis-setup.ts)
  await assertRedisSetup(config.redis).catch((err: Error) => { redis.disconnect(); throw err; });
  // writes answered once replicas hold them run on a connection of their own (store/replica-ack.ts)
  const replicaAck = await ReplicaAck.open(config.redis, logger).catch((err: Error) => { redis.disconnect(); throw err; });
  const users = new UserStore(redis, config.redis.keyPrefix, config.redis.writeSettleMs, replicaAck);
  const groups = new GroupStore(redis, config.redis.keyPrefix, config.scim.maxGroupMembers, config.redis.writeSettleMs, replicaAck, largeGroups(config));
  // the operator surface enqueues (resync, retry), so it uses a connection that rides out Redis restarts
  const opsRedis = createQueueConnection(config.redis);
  opsRedis.on("error", () => undefined);
  // the operator's changes (directories, tokens) wait for replicas too: a revoked token must stay revoked
  const registry = await startRegistry(config, opsRedis, logger, replicaAck);
  const ops = createOpsContext(config, opsRedis, registry);

  const app = express();
  app.disable("x-powered-by");
  // SCIM resources carry their version as ETag; nothing here makes ETags of response bodies
  app.set("etag", false);
  app.set("trust proxy", config.server.trustProxy);
  app.use(requestLog(logger));
  // a base URL entered with a trailing slash still reaches its routes (src/scim/path-slashes.ts)
  app.use(collapseSlashes);
  opsRoutes(app, ops, opts.probe ?? new RoleProbe("server"), opts.metrics);
  app.use("/admin", adminRouter({ config, redis: opsRedis, queues: ops.queues, logger, registry }));
  app.use(tokenEndpoint({ config, registry, limiter: new AuthFailureLimiter(redis, config.auth.maxFailures, config.auth.windowSeconds) }));
  if (opts.metrics) app.use(SCIM_DIRECTORY_PATH, scimMetrics(registry, opts.metrics));
  // the SCIM routes on this app, not in an app of their own (src/scim/app.ts says why)
  // the IdP's writes per minute (the status page's chart): summed here and written once a second, not one
  // command per SCIM write; `close` writes what is left
  const counters = new MinuteCounters(redis, config.redis.keyPrefix, COUNTER_FLUSH_MS);
  app.use(SCIM_DIRECTORY_PATH, scimDirectoryRouter({ config, users, groups, logger, registry, counters }));
  app.use(scimNotFound);
  // every error of this app (a SCIM route's, or e.g. a malformed %-escape in /scim/v2/:directoryId) is
  // answered in SCIM form, never with Express's default HTML page and its stack trace
  app.use(scimErrorHandler(logger, config.server.retryAfterSeconds));

  const { server, url, port } = await listen(app, config.server.host, config.server.port);
  return {
    url, port,
    close: async () => {
      await closer(server);
      await counters.close().catch(() => undefined);
      await registry.stop();
      await ops.queues.close();
      await closeConnection(opsRedis);
      await closeConnection(redis);
      await replicaAck?.close();
    },
  };
}

/**
 * For a worker-only process: /healthz, /readyz and /metrics on `metrics.workerPort` (0 = off). Several
 * workers may run on one host: when the port is taken, the endpoints listen on a port the system picks,
 * logged with a warning (so the worker starts, and its metrics can still be found), rather than crashing
 * with EADDRINUSE. Give each worker its own METRICS_PORT to scrape them at known ports.
 */
export async function startWorkerEndpoints(config: Config, metrics: Metrics, logger: Logger, probe = new RoleProbe("worker")): Promise<RunningServer | undefined> {
  const wanted = config.metrics.workerPort;
  if (!wanted) return undefined;
  const redis = createQueueConnection(config.redis);
  redis.on("error", () => undefined);
  const ops = createOpsContext(config, redis);
  const app = express();
  app.disable("x-powered-by");
  opsRoutes(app, ops, probe, metrics);
  const { server, url, port } = await listen(app, config.server.host, wanted).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== "EADDRINUSE") throw err;
    const fallback = await listen(app, config.server.host, 0);
    logger.warn({ port: wanted, boundPort: fallback.port, url: fallback.url },
      `metrics port ${wanted} is in use (another worker on this host?): /metrics, /healthz and /readyz listen on port ${fallback.port} instead; set METRICS_PORT to choose`);
    return fallback;
  });
  return {
    url, port,
    close: async () => {
      await closer(server);
      await ops.queues.close();
      await closeConnection(redis);
    },
  };
}
