/**
 * Starts the SCIM server role: Redis store connection, the SCIM app, the HTTP listener, and a graceful
 * stop (stop accepting, finish in-flight requests, close Redis).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import pinoHttp from "pino-http";
import express from "express";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "./config/schema";
import { createScimApp } from "./scim/app";
import { GroupStore, UserStore, createQueueConnection, createStoreConnection, waitReady } from "./store";
import { adminRouter } from "./admin/app";
import { SyncQueues } from "./sync/queues";

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the SCIM HTTP server; resolves once it listens. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const redis = createStoreConnection(config.redis.url, config.redis.commandTimeoutMs);
  redis.on("error", (err) => logger.debug({ err: { message: err.message } }, "redis connection error"));
  await waitReady(redis, 10000);
  const users = new UserStore(redis, config.redis.keyPrefix);
  const groups = new GroupStore(redis, config.redis.keyPrefix, config.scim.maxGroupMembers);

  const app = express();
  app.disable("x-powered-by");
  app.use(pinoHttp({
    logger,
    genReqId: (req, res) => {
      const id = (req.headers["x-request-id"] as string | undefined)?.slice(0, 64) || randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : res.statusCode >= 400 ? "info" : "debug"),
  }));
  app.get("/healthz", (_req, res) => { res.json({ status: "ok" }); });
  // the admin API enqueues (resync), so it gets a queue connection that rides out Redis restarts
  const queueRedis = createQueueConnection(config.redis.url);
  queueRedis.on("error", () => undefined);
  const queues = new SyncQueues(queueRedis, config);
  app.use("/admin", adminRouter({ config, redis: queueRedis, queues }));
  app.use(createScimApp({ config, users, groups, logger }));

  const server = http.createServer({ keepAliveTimeout: 65000 }, app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.server.port, config.server.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.server.host === "0.0.0.0" || config.server.host === "::" ? "127.0.0.1" : config.server.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      });
      await queues.close();
      await queueRedis.quit().catch(() => queueRedis.disconnect());
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
