/**
 * A POST whose answer was lost is not created twice. A private redis-server is SIGSTOPped right before the
 * create's write script is sent and SIGCONTed after the settle window (redis.writeSettleMs) has passed: the
 * POST answers 503 although its write commits once Redis runs again. The IdP's identical retry is answered
 * 201 with the resource that first POST created — one group, not two — and a different body still creates.
 */
import request from "supertest";
import type { Express } from "express";
import { Redis } from "ioredis";
import { hashToken } from "../../src/auth/token";
import { loadConfig } from "../../src/config/load";
import { createLogger } from "../../src/observability/logger";
import { createScimApp } from "../../src/scim/app";
import { GroupStore, UserStore, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { waitFor } from "../helpers/sync-env";
import { ProcessSet, RedisServerProcess } from "../helpers/processes";

const TOKEN = "lost-token-1";
const STOP_MS = 4000;
const G = "/scim/v2/acme/Groups";
const U = "/scim/v2/acme/Users";

let set: ProcessSet;
let redisServer: RedisServerProcess;
let store: RedisConnection;
let check: Redis;
let app: Express;

beforeAll(async () => {
  set = new ProcessSet();
  redisServer = await RedisServerProcess.start(set);
  const config = loadConfig({
    env: { REDIS_URL: redisServer.url },
    overrides: {
      redis: { keyPrefix: "lost", commandTimeoutMs: 500, writeSettleMs: 1000 },
      server: { publicBaseUrl: "https://bridge.example.com", retryAfterSeconds: 1 },
      log: { level: "silent" },
      directories: [{ id: "acme", tokenHashes: [hashToken(TOKEN)], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } }],
    },
  });
  store = createStoreConnection(config.redis.url, config.redis.commandTimeoutMs);
  store.on("error", () => undefined);
  await waitReady(store);
  check = new Redis(redisServer.url);
  const users = new UserStore(store, "lost", config.redis.writeSettleMs);
  const groups = new GroupStore(store, "lost", config.scim.maxGroupMembers, config.redis.writeSettleMs);
  app = createScimApp({ config, users, groups, logger: createLogger("silent") });
}, 30000);
afterAll(async () => {
  store?.disconnect();
  check?.disconnect();
  await set?.killAll();
});

const auth = { Authorization: `Bearer ${TOKEN}` };

/** The next call of `script` stops redis-server just before it is sent; it runs again STOP_MS later. */
function stallNext(script: "writeUser" | "writeGroup"): Promise<void> {
  const target = store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const original = target[script];
  let resume!: () => void;
  const resumed = new Promise<void>((r) => { resume = r; });
  target[script] = function (this: unknown, ...args: unknown[]) {
    target[script] = original;
    const pid = redisServer.proc!.pid!;
    process.kill(pid, "SIGSTOP");
    setTimeout(() => { process.kill(pid, "SIGCONT"); resume(); }, STOP_MS);
    return original.apply(this, args);
  };
  return resumed;
}

/** Waits until Redis holds `n` fingerprints of lost creates (written once Redis answers again). */
async function fingerprints(n: number): Promise<string[]> {
  return waitFor(async () => {
    const keys = await check.keys("lost:{acme}:lc:*");
    return keys.length >= n ? keys : undefined;
  }, 10000, `${n} lost-create fingerprint(s)`);
}

describe("a POST whose answer was lost (redis-server stopped past the settle window)", () => {
  it("should answer the IdP's identical group retry with the group the first POST created, not a second group", async () => {
    const body = { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Lost Answer Group", members: [] };
    const resumed = stallNext("writeGroup");
    const first = await request(app).post(G).set(auth).send(body);
    expectScimError(first, 503);
    await resumed;
    // the write committed once Redis ran again, and the fingerprint was written
    await waitFor(async () => (await check.zcard("lost:{acme}:groups")) === 1, 10000, "the first create to commit");
    await fingerprints(1);
    const [committed] = await check.zrange("lost:{acme}:groups", "0", "-1");

    const retry = await request(app).post(G).set(auth).send(body);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ id: committed, displayName: "Lost Answer Group" });
    expect(retry.headers.location).toBe(`https://bridge.example.com${G}/${committed}`);
    expect(await check.zcard("lost:{acme}:groups")).toBe(1);
    // a different body is another create
    expect((await request(app).post(G).set(auth).send({ ...body, displayName: "Another Group" })).status).toBe(201);
    expect(await check.zcard("lost:{acme}:groups")).toBe(2);
  }, 30000);

  it("should answer a user's identical retry 201 with that user (not 409), and keep no password in the fingerprint", async () => {
    const body = userBody("lost.answer@example.com", { password: "s3cret-Passw0rd" });
    const resumed = stallNext("writeUser");
    expectScimError(await request(app).post(U).set(auth).send(body), 503);
    await resumed;
    await waitFor(async () => (await check.zcard("lost:{acme}:users")) === 1, 10000, "the first create to commit");
    const keys = await fingerprints(2);
    const [committed] = await check.zrange("lost:{acme}:users", "0", "-1");
    for (const k of keys) expect(`${k} ${await check.get(k)}`).not.toMatch(/s3cret/);
    const retry = await request(app).post(U).set(auth).send(body);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ id: committed, userName: "lost.answer@example.com" });
    expect(await check.zcard("lost:{acme}:users")).toBe(1);
  }, 30000);
});
