/**
 * The operator's surface during a Redis outage. The admin API's connection rides out restarts (enqueues
 * wait for Redis rather than fail), so before, a request sent while Redis was down waited, queued, for as
 * long as the outage lasted: the status page and the API hung while SCIM answered 503 at once. A private
 * redis-server is SIGKILLed and started again:
 * - while it is down, the API, the status page and bull-board answer 503 + Retry-After (Redis is started
 *   again only after they answered: a request that waited for it, as before, hangs the test);
 * - once it is back, they answer as before.
 */
import request from "supertest";
import express, { type Express } from "express";
import { hashToken } from "../../src/auth/token";
import { adminRouter } from "../../src/admin/app";
import { loadConfig } from "../../src/config/load";
import type { Config } from "../../src/config/schema";
import { startRegistry, type DirectoryRegistry } from "../../src/directories/registry";
import { createLogger } from "../../src/observability/logger";
import { createQueueConnection, waitReady, type RedisConnection } from "../../src/store";
import { SyncQueues } from "../../src/sync/admission/queues";
import { ProcessSet, RedisServerProcess } from "../helpers/processes";
import { waitFor } from "../helpers/sync-env";

const ADMIN_TOKEN = "admin-outage-token-1";
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

let set: ProcessSet;
let redis: RedisServerProcess;
let config: Config;
let ops: RedisConnection;
let registry: DirectoryRegistry;
let queues: SyncQueues;
let app: Express;

beforeAll(async () => {
  set = new ProcessSet();
  redis = await RedisServerProcess.start(set);
  config = loadConfig({
    env: { REDIS_URL: redis.url },
    overrides: {
      redis: { keyPrefix: "outage" },
      server: { retryAfterSeconds: 2 },
      admin: { tokenHashes: [hashToken(ADMIN_TOKEN)] },
      log: { level: "silent" },
      directories: [{ id: "wf", tokenHashes: [hashToken("wf-token-outage")], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } }],
    },
  });
  // as the server role makes it (roles/server.ts): a queue connection, which rides out restarts
  ops = createQueueConnection(config.redis);
  ops.on("error", () => undefined);
  await waitReady(ops);
  registry = await startRegistry(config, ops, createLogger("silent"));
  queues = new SyncQueues(ops, config);
  app = express();
  app.use("/admin", adminRouter({ config, redis: ops, queues, logger: createLogger("silent"), registry }));
}, 30000);
afterAll(async () => {
  await registry?.stop();
  await queues?.close().catch(() => undefined);
  ops?.disconnect();
  await set?.killAll();
});

const PATHS = ["/admin/directories", "/admin/directories/wf", "/admin/status", "/admin/queues/api/queues"];

describe("the admin API while Redis is down", () => {
  it("should answer 503 + Retry-After at once while Redis is down, and answer as before once it is back", async () => {
    for (const path of PATHS) expect([path, (await request(app).get(path).set(admin).set("Accept", "application/json")).status]).toEqual([path, 200]);

    await redis.kill("SIGKILL");
    await waitFor(async () => ops.status !== "ready", 10000, "the connection to notice");
    for (const path of PATHS) {
      // before, these waited until Redis came back (it does not, in this test, before they are answered)
      const res = await request(app).get(path).set(admin).set("Accept", "application/json");
      expect([path, res.status, res.headers["retry-after"]]).toEqual([path, 503, "2"]);
      expect(res.body).toEqual({ error: "the store cannot be reached; retry later" });
    }
    const resync = await request(app).post("/admin/directories/wf/resync").set(admin);
    expect(resync.status).toBe(503);

    await redis.restart();
    await waitFor(async () => ops.status === "ready", 15000, "the connection to be back");
    for (const path of PATHS) expect([path, (await request(app).get(path).set(admin).set("Accept", "application/json")).status]).toEqual([path, 200]);
  }, 60000);
});
