/**
 * Secrets never reach the logs: the SCIM bearer token, the admin token, the platform API key and embed
 * session ids are absent from everything the bridge logged while serving and syncing (debug level).
 */
import { Writable } from "node:stream";
import { startSyncEnv, waitFor, PLATFORM_KEY, TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { waitReconcileJobs } from "../helpers/sync-wait";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";

let e: SyncEnv;
let s: BridgeServer;
let out = "";
const sink = new Writable({ write(chunk, _enc, cb) { out += chunk.toString(); cb(); } });

beforeAll(async () => {
  e = await startSyncEnv({ runtime: false });
  const logger = createLogger("trace", sink);
  e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY } });
  s = await startBridgeServer(e, logger);
});
afterAll(async () => { await s.close(); await e.close(); });

describe("log redaction", () => {
  it("should log requests and platform calls without any token, key or session id", async () => {
    const headers = { Authorization: `Bearer ${TOKENS.em}`, "Content-Type": "application/scim+json" };
    const created = await fetch(`${s.url}/scim/v2/em/Users`, { method: "POST", headers, body: JSON.stringify(userBody("logged@example.com")) });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { Authorization: `Bearer ${TOKENS.wf}` } });
    await fetch(`${s.url}/admin/directories`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { Authorization: "Bearer wrong-token-logged-attempt" } });
    await waitFor(async () => (await e.state.get("em", "user", id)).status === "synced", 10000, "synced");
    // the reconcile completed, so every platform call it made is logged (pino writes to the sink synchronously,
    // and a request's line is written when its answer is sent, before fetch resolves)
    await waitReconcileJobs(e, "em", "user", id);

    expect(out).toContain("/scim/v2/em/Users"); // the logs did capture the traffic…
    expect(out).toContain("platform call");
    expect(out).toContain("[redacted]");
    for (const secret of [TOKENS.em, TOKENS.wf, ADMIN_TOKEN, PLATFORM_KEY, "wrong-token-logged-attempt"]) expect(out).not.toContain(secret);
    const sessions = (await e.simState()) as unknown as { sessionsIssued: number };
    expect(sessions.sessionsIssued).toBeGreaterThan(0);
    expect(out).not.toMatch(/"sessionId":"(?!\[redacted\])/);
  });

  it("should log admin sign-ins, sign-outs and cookie-authenticated requests without the admin token or the session id", async () => {
    out = "";
    const login = (body: string, type = "application/x-www-form-urlencoded") =>
      fetch(`${s.url}/admin/login`, { method: "POST", redirect: "manual", headers: { "Content-Type": type }, body });
    const wrong = "wrong-admin-token-logged-attempt";
    expect((await login(`token=${wrong}`)).status).toBe(401);
    expect((await login(JSON.stringify({ token: wrong }), "application/json")).status).toBe(401);
    expect((await login(`{"token":"${ADMIN_TOKEN}"`, "application/json")).status).toBe(400); // malformed: the error path
    const signedIn = await login(`token=${encodeURIComponent(ADMIN_TOKEN)}`);
    expect(signedIn.status).toBe(303);
    const sid = /^sb_admin=([^;]+)/.exec(signedIn.headers.get("set-cookie") ?? "")![1];
    expect(sid.length).toBeGreaterThanOrEqual(32);
    const cookie = { Cookie: `sb_admin=${sid}` };
    const statusPage = await fetch(`${s.url}/admin/status`, { headers: { ...cookie, Accept: "text/html" } });
    expect(statusPage.status).toBe(200);
    const formToken = /name="_formToken" value="([^"]+)"/.exec(await statusPage.text())![1];
    expect((await fetch(`${s.url}/admin/directories`, { headers: cookie })).status).toBe(200);
    expect((await fetch(`${s.url}/admin/queues/api/queues`, { headers: cookie })).status).toBe(200);
    const signOut = { ...cookie, Origin: s.url, "X-Form-Token": formToken };
    expect((await fetch(`${s.url}/admin/logout`, { method: "POST", redirect: "manual", headers: signOut })).status).toBe(303);
    expect((await fetch(`${s.url}/admin/directories`, { headers: cookie })).status).toBe(401); // the session ended
    // (each request's line was written to the sink, synchronously, when its answer was sent)

    expect(out).toContain("/admin/login"); // the requests were logged…
    expect(out).toContain("/admin/status");
    expect(out).toContain("[redacted]"); // …with the cookie and Set-Cookie headers censored
    for (const secret of [ADMIN_TOKEN, encodeURIComponent(ADMIN_TOKEN), wrong, sid, formToken]) expect(out).not.toContain(secret);
  });
});
