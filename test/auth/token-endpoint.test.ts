/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4, §2.3.1, §5.1, §5.2; RFC 6750) at POST /oauth/token: client
 * authentication by HTTP Basic or body parameters, the errors of §5.2, access tokens that work on their
 * own directory's SCIM URL only and stop working when they expire, and secret rotation.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { hashToken } from "../../src/auth/token";
import { createLogger } from "../../src/observability/logger";
import { startServer, type RunningServer } from "../../src/roles/server";

let e: SyncEnv;
let s: BridgeServer;
let shortLived: RunningServer;
let secret: string;
let secretId: string;

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
const basic = (id: string, pw: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(pw)}`).toString("base64")}`;
const tokenCall = (base: string, body: string, headers: Record<string, string> = {}) => fetch(`${base}/oauth/token`, {
  method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers }, body,
});
const scimGet = (base: string, dir: string, token: string) => fetch(`${base}/scim/v2/${dir}/Users`, { headers: { Authorization: `Bearer ${token}` } });

beforeAll(async () => {
  e = await startSyncEnv({ runtime: false });
  s = await startBridgeServer(e);
  const made = await (await s.admin("/directories/wf/oauth/secrets", { method: "POST", body: JSON.stringify({ label: "entra" }) })).json() as { clientId: string; clientSecret: string; id: string; tokenEndpoint: string };
  expect(made).toMatchObject({ clientId: "wf", tokenEndpoint: "https://bridge.example.com/oauth/token" });
  secret = made.clientSecret;
  secretId = made.id;
  shortLived = await startServer({ ...e.config, server: { ...e.config.server, host: "127.0.0.1", port: 0 }, oauth: { accessTokenTtlSeconds: 1 }, admin: { tokenHashes: [hashToken(ADMIN_TOKEN)] } }, createLogger("silent"));
});
afterAll(async () => { await shortLived.close(); await s.close(); await e.close(); });

describe("POST /oauth/token", () => {
  it("should issue a Bearer token to a client authenticated by HTTP Basic, usable on its directory only", async () => {
    const res = await tokenCall(s.url, form({ grant_type: "client_credentials" }), { Authorization: basic("wf", secret) });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("pragma")).toBe("no-cache");
    const body = await res.json() as { access_token: string; token_type: string; expires_in: number };
    expect(body).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 3600 });
    expect((await scimGet(s.url, "wf", body.access_token)).status).toBe(200);
    // a token of directory wf is nothing on directory em
    expect((await scimGet(s.url, "em", body.access_token)).status).toBe(401);
    // only its hash is stored
    expect(await e.redis.exists(`${e.prefix}:{wf}:oauth:at:${hashToken(body.access_token)}`)).toBe(1);
  });

  it("should accept client_id and client_secret in the body", async () => {
    const res = await tokenCall(s.url, form({ grant_type: "client_credentials", client_id: "wf", client_secret: secret }));
    expect(res.status).toBe(200);
    expect((await scimGet(s.url, "wf", ((await res.json()) as { access_token: string }).access_token)).status).toBe(200);
  });

  it("should answer a wrong secret with invalid_client: 401 and WWW-Authenticate Basic", async () => {
    const viaBasic = await tokenCall(s.url, form({ grant_type: "client_credentials" }), { Authorization: basic("wf", "wrong") });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
    expect(await viaBasic.json()).toEqual({ error: "invalid_client", error_description: expect.any(String) });
    const viaBody = await tokenCall(s.url, form({ grant_type: "client_credentials", client_id: "wf", client_secret: "wrong" }));
    expect(viaBody.status).toBe(401);
    expect((await viaBody.json() as { error: string }).error).toBe("invalid_client");
    // another directory's id with this secret
    expect((await tokenCall(s.url, form({ grant_type: "client_credentials" }), { Authorization: basic("em", secret) })).status).toBe(401);
    // no client authentication at all
    expect((await tokenCall(s.url, form({ grant_type: "client_credentials" }))).status).toBe(401);
  });

  it("should answer the other errors of RFC 6749 §5.2 with 400", async () => {
    const err = async (res: Response) => [res.status, ((await res.json()) as { error: string }).error];
    expect(await err(await tokenCall(s.url, form({ grant_type: "password", username: "a", password: "b" }), { Authorization: basic("wf", secret) }))).toEqual([400, "unsupported_grant_type"]);
    expect(await err(await tokenCall(s.url, form({}), { Authorization: basic("wf", secret) }))).toEqual([400, "invalid_request"]);
    expect(await err(await tokenCall(s.url, form({ grant_type: "client_credentials", client_id: "wf", client_secret: secret }), { Authorization: basic("wf", secret) }))).toEqual([400, "invalid_request"]);
    expect(await err(await tokenCall(s.url, "grant_type=client_credentials&grant_type=client_credentials", { Authorization: basic("wf", secret) }))).toEqual([400, "invalid_request"]);
    const asJson = await fetch(`${s.url}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: basic("wf", secret) }, body: JSON.stringify({ grant_type: "client_credentials" }) });
    expect(await err(asJson)).toEqual([400, "invalid_request"]);
  });

  it("should refuse an expired access token like a wrong one", async () => {
    const res = await tokenCall(shortLived.url, form({ grant_type: "client_credentials" }), { Authorization: basic("wf", secret) });
    const body = await res.json() as { access_token: string; expires_in: number };
    expect(body.expires_in).toBe(1);
    expect((await scimGet(shortLived.url, "wf", body.access_token)).status).toBe(200);
    const refused = await waitFor(async () => { const r = await scimGet(shortLived.url, "wf", body.access_token); return r.status === 401 ? r : undefined; }, 10000, "expired access token refused");
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("should rotate client secrets: a second one works beside the first, and a revoked one no more", async () => {
    const second = await (await s.admin("/directories/wf/oauth/secrets", { method: "POST", body: JSON.stringify({ label: "rotation" }) })).json() as { clientSecret: string };
    const ok = (pw: string) => tokenCall(s.url, form({ grant_type: "client_credentials" }), { Authorization: basic("wf", pw) }).then((r) => r.status);
    expect(await ok(secret)).toBe(200);
    expect(await ok(second.clientSecret)).toBe(200);
    const shown = await (await s.admin("/directories/wf/oauth")).json() as { secrets: Array<{ label: string }>; clientId: string };
    expect(shown).toMatchObject({ clientId: "wf", enabled: true });
    expect(shown.secrets.map((x) => x.label)).toEqual(["entra", "rotation"]);
    expect(JSON.stringify(shown)).not.toContain(second.clientSecret);
    expect((await s.admin(`/directories/wf/oauth/secrets/${secretId}`, { method: "DELETE" })).status).toBe(200);
    expect(await ok(secret)).toBe(401);
    expect(await ok(second.clientSecret)).toBe(200);
  });

  it("should refuse a disabled directory's client with unauthorized_client", async () => {
    const second = await (await s.admin("/directories/em/oauth/secrets", { method: "POST", body: "{}" })).json() as { clientSecret: string };
    await s.admin("/directories/em/disable", { method: "POST" });
    const res = await tokenCall(s.url, form({ grant_type: "client_credentials" }), { Authorization: basic("em", second.clientSecret) });
    expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([400, "unauthorized_client"]);
    await s.admin("/directories/em/enable", { method: "POST" });
    expect((await tokenCall(s.url, form({ grant_type: "client_credentials" }), { Authorization: basic("em", second.clientSecret) })).status).toBe(200);
  });
});
