/**
 * Failed-authentication limits, configurable (auth.maxFailures, auth.windowSeconds, server.trustProxy),
 * on the admin API (header tokens and the sign-in form) and on the SCIM endpoint of the running server,
 * each counted apart; a valid token or session is never refused (issue 9 item 1).
 */
import { ConfigError, loadConfig } from "../../src/config/load";
import { startSyncEnv, TOKENS as SYNC_TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";

/** The address the one trusted proxy (trustProxy: 1) says the client has. */
const from = (ip: string) => ({ "X-Forwarded-For": ip });

describe("auth.* and server.trustProxy in the configuration", () => {
  const refused = (overrides: Record<string, unknown>, key: string, why?: RegExp) => {
    let err: unknown;
    try { loadConfig({ env: {}, overrides }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(key);
    if (why) expect((err as Error).message).toMatch(why);
  };

  it("should refuse limits that are not positive integers, naming the key", () => {
    for (const [auth, key] of [[{ maxFailures: 0 }, "auth.maxFailures"], [{ windowSeconds: -1 }, "auth.windowSeconds"], [{ maxFailures: "ten" }, "auth.maxFailures"], [{ windowSeconds: 1.5 }, "auth.windowSeconds"]] as const) {
      refused({ auth }, key);
    }
    expect(loadConfig({ env: {} }).auth).toEqual({ maxFailures: 20, windowSeconds: 60 });
  });

  it("should refuse trustProxy: true (every X-Forwarded-For entry believed) and lists that name no address, saying what to set", () => {
    refused({ server: { trustProxy: true } }, "server.trustProxy", /number of proxies/);
    refused({ server: { trustProxy: "a-proxy" } }, "server.trustProxy", /IP addresses, subnets/);
    refused({ server: { trustProxy: "10.0.0.0/33" } }, "server.trustProxy");
    refused({ server: { trustProxy: -1 } }, "server.trustProxy");
    for (const trustProxy of [false, 0, 1, 2, "loopback", "10.0.0.1, 10.0.0.0/8, ::1", "loopback, uniquelocal", ["10.0.0.1", "fd00::/8"], "10.0.0.0/255.0.0.0"]) {
      expect(loadConfig({ env: {}, overrides: { server: { trustProxy } } }).server.trustProxy).toEqual(trustProxy);
    }
  });
});

describe("failed-authentication limit on the admin API", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  beforeAll(async () => {
    e = await startSyncEnv({ runtime: false, config: { auth: { maxFailures: 3, windowSeconds: 30 }, server: { trustProxy: 1, publicBaseUrl: "https://bridge.example.com" } } });
    s = await startBridgeServer(e);
  });
  afterAll(async () => { await s.close(); await e.close(); });

  const admin = (ip: string, token: string, path = "/admin/directories", extra: Record<string, string> = {}) =>
    fetch(`${s.url}${path}`, { headers: { ...from(ip), Authorization: `Bearer ${token}`, ...extra } });
  const signIn = (ip: string, token: string) => fetch(`${s.url}/admin/login`, {
    method: "POST", redirect: "manual", headers: { ...from(ip), "Content-Type": "application/x-www-form-urlencoded" }, body: `token=${encodeURIComponent(token)}`,
  });

  it("should answer wrong Bearer tokens past maxFailures with 429 + Retry-After, and still let the admin token through", async () => {
    for (let i = 0; i < 3; i++) expect((await admin("203.0.113.20", `guess-${i}`)).status).toBe(401);
    const blocked = await admin("203.0.113.20", "guess-4");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await blocked.json()).toEqual({ error: expect.stringMatching(/too many failed/i) });
    expect(blocked.headers.get("x-frame-options")).toBe("DENY");
    const page = await admin("203.0.113.20", "guess-5", "/admin/status", { Accept: "text/html" });
    expect(page.status).toBe(429);
    expect(await page.text()).toContain("Too many failed sign-ins");
    expect((await admin("203.0.113.20", "guess-6", "/admin/queues/api/queues")).status).toBe(429);

    expect((await admin("203.0.113.20", ADMIN_TOKEN)).status).toBe(200); // a valid token always passes
    expect((await admin("203.0.113.20", ADMIN_TOKEN, "/admin/queues/api/queues")).status).toBe(200);
    expect((await admin("203.0.113.21", "guess-0")).status).toBe(401); // another address
  });

  it("should count wrong tokens in the sign-in form, and still sign in with the right one", async () => {
    for (let i = 0; i < 3; i++) expect((await signIn("203.0.113.30", `guess-${i}`)).status).toBe(401);
    const blocked = await signIn("203.0.113.30", "guess-4");
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("set-cookie")).toBeNull();
    const ok = await signIn("203.0.113.30", ADMIN_TOKEN);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("set-cookie")).toMatch(/^sb_admin=/);
  });

  it("should not count a visit without credentials (the sign-in page), nor a success", async () => {
    for (let i = 0; i < 6; i++) expect((await fetch(`${s.url}/admin/status`, { headers: { ...from("203.0.113.40"), Accept: "text/html" } })).status).toBe(401);
    for (let i = 0; i < 6; i++) expect((await admin("203.0.113.40", ADMIN_TOKEN)).status).toBe(200);
    expect((await admin("203.0.113.40", "guess-0")).status).toBe(401);
  });

  it("should count admin and SCIM failures apart, and never refuse valid tokens on either", async () => {
    for (let i = 0; i < 4; i++) await admin("203.0.113.50", `guess-${i}`);
    expect((await admin("203.0.113.50", "guess-x")).status).toBe(429);
    const scim = (ip: string, token: string) => fetch(`${s.url}/scim/v2/wf/Users`, { headers: { ...from(ip), Authorization: `Bearer ${token}` } });
    expect((await scim("203.0.113.50", "guess-0")).status).toBe(401);
    expect((await scim("203.0.113.50", SYNC_TOKENS.wf)).status).toBe(200);

    for (let i = 0; i < 4; i++) await scim("203.0.113.51", `guess-${i}`);
    expect((await scim("203.0.113.51", "guess-x")).status).toBe(429);
    expect((await scim("203.0.113.51", SYNC_TOKENS.wf)).status).toBe(200);
    expect((await fetch(`${s.url}/scim/v2/em/Users`, { headers: { ...from("203.0.113.51"), Authorization: "Bearer guess-x" } })).status).toBe(401);
    expect((await admin("203.0.113.51", "guess-0")).status).toBe(401);
  });
});
