/**
 * The admin surface against SCIM credentials and the reverse, its security headers, and what it never
 * shows: SCIM tokens unlock no admin route (JSON API, status page, bull-board, sign-in) and change
 * nothing; the admin token and session unlock no SCIM route; every admin answer carries the security
 * headers; no admin answer, nor /readyz or /metrics, contains a token, a token hash or the platform key.
 */
import { hashToken } from "../../src/auth/token";
import { startSyncEnv, waitFor, waitIdle, PLATFORM_KEY, SIM_TOKEN, TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

let e: SyncEnv;
let s: BridgeServer;
let userId: string;
beforeAll(async () => {
  e = await startSyncEnv({ config: { auth: { maxFailures: 100000, windowSeconds: 60 } } });
  s = await startBridgeServer(e);
  userId = (await e.scim("wf").post("/Users", userBody("visible@example.com"))).body.id;
  const em = (await e.scim("em").post("/Users", userBody("embedded@example.com"))).body.id;
  await waitFor(async () => (await e.state.get("wf", "user", userId)).status === "synced" && (await e.state.get("em", "user", em)).status === "synced", 15000, "synced");
  // "synced" is written inside the reconcile; its bookkeeping (trail, lag counter, slot) follows: wait for it
  // too, or the snapshot below sees the last of it land
  await waitIdle(e, "wf");
  await waitIdle(e, "em");
}, 30000);
afterAll(async () => { await s.close(); await e.close(); });

type Route = [method: string, path: string];
const ADMIN_ROUTES: Route[] = [
  ["GET", "/admin/status"], ["GET", "/admin/status/wf"], ["GET", "/admin/status/wf/plan"], ["GET", "/admin/live"], ["GET", "/admin/live/wf"],
  ["GET", "/admin/assets/live.js"], ["GET", "/admin/queues"], ["GET", "/admin/queues/"], ["GET", "/admin/queues/api/queues"], ["GET", "/admin/queues/api/redis/stats"],
  ["PUT", "/admin/queues/api/queues/pause"], ["GET", "/admin/directories"], ["GET", "/admin/directories/wf"], ["GET", "/admin/directories/em"],
  ["GET", "/admin/directories/wf/failed"], ["GET", "/admin/directories/wf/resync"], ["POST", "/admin/directories/wf/retry"],
  ["POST", `/admin/directories/wf/items/user/${"x"}/retry`], ["POST", "/admin/directories/wf/resume"], ["POST", "/admin/directories/wf/resync"],
  ["POST", "/admin/directories/em/resync"], ["GET", "/admin/nothing"], ["DELETE", "/admin/directories/wf"],
];
const SCIM_ROUTES: Route[] = [
  ["GET", "/scim/v2/wf/Users"], ["GET", "/scim/v2/wf/Users/ID"], ["POST", "/scim/v2/wf/Users"], ["PUT", "/scim/v2/wf/Users/ID"], ["PATCH", "/scim/v2/wf/Users/ID"],
  ["DELETE", "/scim/v2/wf/Users/ID"], ["POST", "/scim/v2/wf/Users/.search"], ["GET", "/scim/v2/wf/Groups"], ["POST", "/scim/v2/wf/Groups"],
  ["GET", "/scim/v2/wf/ServiceProviderConfig"], ["GET", "/scim/v2/wf/ResourceTypes"], ["GET", "/scim/v2/wf/Schemas"], ["GET", "/scim/v2/wf/Me"],
  ["POST", "/scim/v2/wf/Bulk"], ["GET", "/scim/v2/em/Users"],
];

function call([method, path]: Route, headers: Record<string, string>): Promise<Response> {
  const body = ["POST", "PUT", "PATCH"].includes(method) ? (path.startsWith("/scim") ? JSON.stringify(userBody("intruder@example.com")) : "{}") : undefined;
  const type = path.startsWith("/scim") ? "application/scim+json" : "application/json";
  return fetch(`${s.url}${path.replace("ID", userId)}`, { method, redirect: "manual", body, headers: { ...(body ? { "Content-Type": type } : {}), ...headers } });
}

/** The bridge's own state (data, queues, sessions), without the failed-authentication counters. */
const unchanged = <T>(fn: () => Promise<T>) => expectUnchanged(e.redis, e.prefix, fn, /:authfail:/);

describe("SCIM tokens on the admin surface", () => {
  it("should be refused on every admin route, as JSON and as a page, and change nothing", async () => {
    await unchanged(async () => {
      for (const route of ADMIN_ROUTES) {
        for (const auth of [`Bearer ${TOKENS.wf}`, `Bearer ${TOKENS.em}`, TOKENS.wf, `bearer ${TOKENS.wf}`]) {
          for (const accept of ["application/json", "text/html"]) {
            const res = await call(route, { Authorization: auth, Accept: accept });
            const html = accept === "text/html" && route[0] === "GET";
            // a person gets the sign-in page (bull-board: a redirect to it); a program gets 401 JSON
            const expected = html && route[1].startsWith("/admin/queues") ? 303 : 401;
            expect([...route, auth.slice(0, 6), accept, res.status]).toEqual([...route, auth.slice(0, 6), accept, expected]);
            if (expected === 303) expect(res.headers.get("location")).toBe("/admin/status");
            const text = await res.text();
            expect(text).not.toMatch(/visible@example\.com|"health"|Bull Dashboard/);
          }
        }
      }
    });
  });

  it("should not open a session through the sign-in form", async () => {
    for (const token of [TOKENS.wf, TOKENS.em, hashToken(ADMIN_TOKEN), ` ${ADMIN_TOKEN}`, ADMIN_TOKEN.toUpperCase()]) {
      const res = await fetch(`${s.url}/admin/login`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `token=${encodeURIComponent(token)}` });
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("should not accept forged or stale session cookies", async () => {
    for (const cookie of [`sb_admin=${TOKENS.wf}`, "sb_admin=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", `sb_admin=${"A".repeat(32)}; sb_admin=x`, "sb_admin=../../x", `sb_admin=${ADMIN_TOKEN}`]) {
      expect((await call(["GET", "/admin/directories"], { Cookie: cookie })).status).toBe(401);
    }
  });
});

describe("the admin token and session on the SCIM surface", () => {
  it("should be refused on every SCIM route with a SCIM 401, and change nothing", async () => {
    const signIn = await fetch(`${s.url}/admin/login`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `token=${ADMIN_TOKEN}` });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0];
    await unchanged(async () => {
      for (const route of SCIM_ROUTES) {
        for (const headers of [{ Authorization: `Bearer ${ADMIN_TOKEN}` }, { Authorization: ADMIN_TOKEN }, { Cookie: cookie }, { Cookie: cookie, Authorization: `Bearer ${ADMIN_TOKEN}` }] as Array<Record<string, string>>) {
          const res = await call(route, headers);
          const body = await res.json().catch(() => undefined);
          expectScimError({ status: res.status, body, headers: Object.fromEntries(res.headers), text: JSON.stringify(body) }, 401);
        }
      }
    });
  });
});

describe("security headers on the admin surface", () => {
  const STRICT = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
  function expectHeaders(res: Response, what: string, csp = true): void {
    const got = Object.fromEntries(Object.keys(STRICT).map((k) => [k, res.headers.get(k)]));
    expect({ what, ...got }).toEqual({ what, ...STRICT });
    if (csp) {
      const policy = res.headers.get("content-security-policy") ?? "";
      for (const directive of ["default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) expect(`${what}: ${policy}`).toContain(directive);
      expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    }
    expect(res.headers.get("x-powered-by")).toBeNull();
  }

  it("should be on the sign-in page, the status page, the JSON API and its errors and redirects", async () => {
    const html = { Accept: "text/html" };
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    expectHeaders(await call(["GET", "/admin/status"], html), "sign-in page (401)");
    expectHeaders(await fetch(`${s.url}/admin/login`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "token=wrong" }), "failed sign-in page");
    const signIn = await fetch(`${s.url}/admin/login`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `token=${ADMIN_TOKEN}` });
    expectHeaders(signIn, "sign-in redirect");
    const cookie = signIn.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^sb_admin=[A-Za-z0-9_-]{32}; HttpOnly; SameSite=Strict; Path=\/admin; Max-Age=\d+/);
    const page = await call(["GET", "/admin/status"], { ...html, Cookie: cookie.split(";")[0] });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("scim-bridge status");
    expectHeaders(page, "status page");
    expectHeaders(await call(["GET", "/admin/directories"], admin), "JSON API");
    expectHeaders(await call(["GET", "/admin/directories/wf"], admin), "JSON API (one directory)");
    expectHeaders(await call(["GET", "/admin/directories"], {}), "JSON 401");
    expectHeaders(await call(["GET", "/admin/nothing"], admin), "JSON 404");
    expectHeaders(await call(["GET", "/admin/directories/nope"], admin), "unknown directory 404");
    expectHeaders(await fetch(`${s.url}/admin/directories/wf/retry`, { method: "POST", headers: { ...admin, "Content-Type": "application/json" }, body: "{" }), "JSON 400");
    expectHeaders(await fetch(`${s.url}/admin/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" }), "sign-in 400");
    expectHeaders(await call(["POST", "/admin/logout"], { Cookie: cookie.split(";")[0] }), "sign-out redirect");
    // bull-board ships inline scripts, so it gets every header but the CSP (security-headers.ts)
    expectHeaders(await call(["GET", "/admin/queues/"], admin), "bull-board page", false);
    expectHeaders(await call(["GET", "/admin/queues/api/queues"], admin), "bull-board API", false);
  });
});

describe("secrets in what the admin surface shows", () => {
  it("should show no token, token hash or platform key in the JSON API, the status page, bull-board, /readyz or /metrics", async () => {
    const secrets = [TOKENS.wf, TOKENS.em, ADMIN_TOKEN, PLATFORM_KEY, SIM_TOKEN, hashToken(TOKENS.wf), hashToken(TOKENS.em), hashToken(ADMIN_TOKEN)];
    const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const bodies: Array<[string, string]> = [];
    for (const path of ["/admin/directories", "/admin/directories/wf", "/admin/directories/em", "/admin/directories/wf/failed", "/admin/directories/em/resync",
      "/admin/status", "/admin/queues/", "/admin/queues/api/queues", "/admin/queues/api/redis/stats", "/readyz", "/healthz", "/metrics"]) {
      const res = await fetch(`${s.url}${path}`, { headers: { ...admin, Accept: path === "/admin/status" ? "text/html" : "*/*" } });
      expect([path, res.status]).toEqual([path, path === "/readyz" ? res.status : 200]);
      bodies.push([path, await res.text()]);
    }
    for (const [path, text] of bodies) {
      for (const secret of secrets) if (text.includes(secret)) throw new Error(`${path} shows a secret (${secret.slice(0, 6)}…)`);
      expect(`${path}: ${text}`).not.toMatch(/tokenHashes|apiKey"?\s*:|Api-Key /i);
    }
    expect(bodies.find(([p]) => p === "/admin/directories")![1]).toContain('"id":"wf"'); // the API did answer with content
  });
});
