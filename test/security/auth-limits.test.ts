/**
 * Failed-authentication limiting per client address: configurable (auth.maxFailures, auth.windowSeconds),
 * on the SCIM endpoint and on the admin API (header tokens and the sign-in form), each counted apart.
 */
import request from "supertest";
import type { Redis } from "ioredis";
import { ConfigError, loadConfig } from "../../src/config/load";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError } from "../helpers/expect-scim";
import { startSyncEnv, waitFor, TOKENS as SYNC_TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";

const from = (ip: string) => ({ "X-Forwarded-For": ip });
/**
 * The limiter counts in Redis after the 401 is sent: waits until the count under `key` is `n` (one command
 * connection counts in order, so a count that landed means every earlier one did).
 */
async function counted(redis: Redis, key: string, n: number): Promise<void> {
  await waitFor(async () => Number(await redis.get(key)) >= n, 10000, `${n} failures counted under ${key}`);
  expect(Number(await redis.get(key))).toBe(n);
}
/** Polls `status()` until it is `want` (a window ending on its own; successes are not counted). */
async function until(status: () => Promise<number>, want: number): Promise<void> {
  await waitFor(async () => (await status()) === want, 15000, `status ${want}`);
}

describe("auth.maxFailures and auth.windowSeconds on the SCIM endpoint", () => {
  let three: TestScim;
  let seven: TestScim;
  beforeAll(async () => {
    const server = { trustProxy: true, publicBaseUrl: "https://bridge.example.com" };
    three = await startScim({ auth: { maxFailures: 3, windowSeconds: 3 }, server });
    seven = await startScim({ auth: { maxFailures: 7, windowSeconds: 30 }, server });
  });
  afterAll(async () => { await three.close(); await seven.close(); });

  async function failures(t: TestScim, ip: string, n: number): Promise<void> {
    const before = Number(await t.redis.get(`${t.prefix}:authfail:${ip}`));
    for (let i = 0; i < n; i++) expectScimError(await request(t.app).get("/scim/v2/acme/Users").set(from(ip)).set("Authorization", `Bearer wrong-${i}`), 401);
    await counted(t.redis, `${t.prefix}:authfail:${ip}`, before + n);
  }

  it("should block after exactly maxFailures failures, and for windowSeconds", async () => {
    await failures(three, "198.51.100.1", 2);
    expect((await request(three.app).get("/scim/v2/acme/Users").set(from("198.51.100.1")).set(three.auth())).status).toBe(200);
    await failures(three, "198.51.100.1", 1);
    const blocked = await request(three.app).get("/scim/v2/acme/Users").set(from("198.51.100.1")).set(three.auth());
    expectScimError(blocked, 429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers["retry-after"])).toBeLessThanOrEqual(3);
    await until(async () => (await request(three.app).get("/scim/v2/acme/Users").set(from("198.51.100.1")).set(three.auth())).status, 200);

    await failures(seven, "198.51.100.2", 6);
    expect((await request(seven.app).get("/scim/v2/acme/Users").set(from("198.51.100.2")).set(seven.auth())).status).toBe(200);
    await failures(seven, "198.51.100.2", 1);
    const late = await request(seven.app).get("/scim/v2/acme/Users").set(from("198.51.100.2")).set(seven.auth());
    expectScimError(late, 429);
    expect(Number(late.headers["retry-after"])).toBeGreaterThan(20);
  });

  it("should count a token of another directory as a failure", async () => {
    for (let i = 0; i < 3; i++) expectScimError(await request(three.app).get("/scim/v2/acme/Users").set(from("198.51.100.3")).set(three.auth("globex")), 401);
    await counted(three.redis, `${three.prefix}:authfail:198.51.100.3`, 3);
    expectScimError(await request(three.app).get("/scim/v2/globex/Users").set(from("198.51.100.3")).set(three.auth("globex")), 429);
  });

  it("should refuse values that are not positive integers, naming the key", () => {
    for (const [auth, key] of [[{ maxFailures: 0 }, "auth.maxFailures"], [{ windowSeconds: -1 }, "auth.windowSeconds"], [{ maxFailures: "ten" }, "auth.maxFailures"], [{ windowSeconds: 1.5 }, "auth.windowSeconds"]] as const) {
      let err: unknown;
      try { loadConfig({ env: {}, overrides: { auth } }); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain(key);
    }
    expect(loadConfig({ env: {} }).auth).toEqual({ maxFailures: 20, windowSeconds: 60 });
  });
});

describe("failed-authentication limit on the admin API", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  beforeAll(async () => {
    e = await startSyncEnv({ runtime: false, config: { auth: { maxFailures: 3, windowSeconds: 3 }, server: { trustProxy: true, publicBaseUrl: "https://bridge.example.com" } } });
    s = await startBridgeServer(e);
  });
  afterAll(async () => { await s.close(); await e.close(); });

  const admin = (ip: string, token: string, path = "/admin/directories", extra: Record<string, string> = {}) =>
    fetch(`${s.url}${path}`, { headers: { ...from(ip), Authorization: `Bearer ${token}`, ...extra } });
  const signIn = (ip: string, token: string) => fetch(`${s.url}/admin/login`, {
    method: "POST", redirect: "manual", headers: { ...from(ip), "Content-Type": "application/x-www-form-urlencoded" }, body: `token=${encodeURIComponent(token)}`,
  });

  it("should answer 429 with Retry-After after maxFailures wrong Bearer tokens, even to the right token, until the window ends", async () => {
    for (let i = 0; i < 3; i++) expect((await admin("203.0.113.20", `guess-${i}`)).status).toBe(401);
    await counted(e.redis, `${e.prefix}:admin:authfail:203.0.113.20`, 3);
    const blocked = await admin("203.0.113.20", ADMIN_TOKEN);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await blocked.json()).toEqual({ error: expect.stringMatching(/too many failed/i) });
    expect(blocked.headers.get("x-frame-options")).toBe("DENY");
    const page = await admin("203.0.113.20", ADMIN_TOKEN, "/admin/status", { Accept: "text/html" });
    expect(page.status).toBe(429);
    expect(await page.text()).toContain("Too many failed sign-ins");
    expect((await admin("203.0.113.20", ADMIN_TOKEN, "/admin/queues/api/queues")).status).toBe(429);

    expect((await admin("203.0.113.21", ADMIN_TOKEN)).status).toBe(200); // another address
    await until(async () => (await admin("203.0.113.20", ADMIN_TOKEN)).status, 200);
  });

  it("should count wrong tokens in the sign-in form", async () => {
    for (let i = 0; i < 3; i++) expect((await signIn("203.0.113.30", `guess-${i}`)).status).toBe(401);
    await counted(e.redis, `${e.prefix}:admin:authfail:203.0.113.30`, 3);
    const blocked = await signIn("203.0.113.30", ADMIN_TOKEN);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("set-cookie")).toBeNull();
    expect((await signIn("203.0.113.31", ADMIN_TOKEN)).status).toBe(303);
  });

  it("should not count a visit without credentials (the sign-in page), nor a success", async () => {
    for (let i = 0; i < 6; i++) expect((await fetch(`${s.url}/admin/status`, { headers: { ...from("203.0.113.40"), Accept: "text/html" } })).status).toBe(401);
    // one counted failure after them: once it has landed, the visits would have too, had they counted
    expect((await admin("203.0.113.40", "guess-after-visits")).status).toBe(401);
    await counted(e.redis, `${e.prefix}:admin:authfail:203.0.113.40`, 1);
    for (let i = 0; i < 6; i++) expect((await admin("203.0.113.40", ADMIN_TOKEN)).status).toBe(200);
  });

  it("should count admin and SCIM failures apart: a blocked admin address still reaches SCIM, and the reverse", async () => {
    for (let i = 0; i < 3; i++) await admin("203.0.113.50", `guess-${i}`);
    await counted(e.redis, `${e.prefix}:admin:authfail:203.0.113.50`, 3);
    expect((await admin("203.0.113.50", ADMIN_TOKEN)).status).toBe(429);
    expect((await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { ...from("203.0.113.50"), Authorization: `Bearer ${SYNC_TOKENS.wf}` } })).status).toBe(200);

    for (let i = 0; i < 3; i++) await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { ...from("203.0.113.51"), Authorization: `Bearer guess-${i}` } });
    await counted(e.redis, `${e.prefix}:authfail:203.0.113.51`, 3);
    expect((await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { ...from("203.0.113.51"), Authorization: `Bearer ${SYNC_TOKENS.wf}` } })).status).toBe(429);
    expect((await admin("203.0.113.51", ADMIN_TOKEN)).status).toBe(200);
  });
});
