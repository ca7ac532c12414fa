/**
 * Directories at runtime, end to end (issue 13): a directory created through the admin API answers its
 * SCIM base URL and a token once; the IdP pushes with that token and the change reaches the platform
 * simulator through a worker that was started before the directory existed; tokens rotate without
 * downtime and expire like wrong ones; disable answers SCIM 403 and keeps everything; delete needs a
 * disabled directory and an explicit platform choice, then leaves no key behind.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { loadConfig } from "../../src/config/load";
import { scanKeys } from "../helpers/redis";

let e: SyncEnv;
let s: BridgeServer;

beforeAll(async () => {
  e = await startSyncEnv();
  s = await startBridgeServer(e);
});
afterAll(async () => { await s.close(); await e.close(); });

const acme = () => ({ id: "acme", displayName: "Acme Corp", target: "workforce", platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" }, rateLimit: { max: 1000, durationMs: 1000 } });
const json = async (r: Response) => ({ status: r.status, body: await r.json() as Record<string, unknown> & Array<Record<string, unknown>> });
const scim = (dir: string, token: string, method = "GET", path = "/Users", body?: object) => fetch(`${s.url}/scim/v2/${dir}${path}`, {
  method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" }, body: body && JSON.stringify(body),
});
const onPlatform = async (userName: string) => (await e.simState()).scim.users.find((u) => u.userName === userName);

/** Every key matching `pattern`, on every master of a cluster. */
const keysOf = (pattern: string) => scanKeys(e.redis, pattern);

describe("directories at runtime", () => {
  let token: string;

  it("should refuse an invalid directory with the config file's messages, and change nothing", async () => {
    const bad = { ...acme(), platform: { ...acme().platform, baseUrl: "not a url" }, target: "sideways" };
    const res = await json(await s.admin("/directories", { method: "POST", body: JSON.stringify(bad) }));
    expect(res.status).toBe(400);
    // the same lines `config check` prints for the same directory in the config file, without the `directories.N.` prefix
    let fileMessage = "";
    try {
      loadConfig({ env: {}, configDir: "/nonexistent", overrides: { directories: [{ ...bad, tokenHashes: ["a".repeat(64)] }] } });
    } catch (err) { fileMessage = (err as Error).message; }
    const issues = res.body.issues as unknown as string[];
    expect(issues.length).toBeGreaterThan(0);
    for (const line of issues) expect(fileMessage).toContain(line.replace(/^- /, "- directories.0."));
    expect((await s.admin("/directories/acme")).status).toBe(404);
    // tokens are made by the API, never given as hashes
    expect((await json(await s.admin("/directories", { method: "POST", body: JSON.stringify({ ...acme(), tokenHashes: ["a".repeat(64)] }) }))).status).toBe(400);
    // a config-file id is taken
    expect((await s.admin("/directories", { method: "POST", body: JSON.stringify({ ...acme(), id: "wf" }) })).status).toBe(409);
  });

  it("should create a directory, answer its SCIM URL and a token once, and sync what the IdP pushes with it", async () => {
    const res = await json(await s.admin("/directories", { method: "POST", body: JSON.stringify(acme()) }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: "acme", scimBaseUrl: "https://bridge.example.com/scim/v2/acme", token: { secret: expect.any(String) } });
    token = (res.body.token as { secret: string }).secret;
    // only the hash is stored: the secret appears in no key of the directory
    for (const k of await keysOf(`${e.prefix}:{acme}:*`)) {
      if ((await e.redis.type(k)) === "hash") expect(JSON.stringify(await e.redis.hgetall(k))).not.toContain(token);
    }
    const listed = await json(await s.admin("/directories"));
    expect(listed.body.find((d) => d.id === "acme")).toMatchObject({ source: "runtime", disabled: false, displayName: "Acme Corp" });
    expect(listed.body.find((d) => d.id === "wf")).toMatchObject({ source: "config" });

    const created = await scim("acme", token, "POST", "/Users", userBody("ann@acme.example"));
    expect(created.status).toBe(201);
    // the worker (started before acme existed) picks the directory up and syncs
    await waitFor(() => onPlatform("ann@acme.example"), 15000, "ann on the platform");
    expect((await scim("wf", token)).status).toBe(401); // a token of acme is nothing on wf
  });

  it("should rotate tokens without downtime, never list a secret, and refuse an expired token like a wrong one", async () => {
    const second = await json(await s.admin("/directories/acme/tokens", { method: "POST", body: JSON.stringify({ label: "rotation 2" }) }));
    expect(second.status).toBe(201);
    const newToken = second.body.token as unknown as string;
    expect((await scim("acme", token)).status).toBe(200); // both live at once
    expect((await scim("acme", newToken)).status).toBe(200);
    const list = await json(await s.admin("/directories/acme/tokens"));
    expect(list.body.map((t) => t.label)).toEqual(["first token", "rotation 2"]);
    expect(JSON.stringify(list.body)).not.toContain(newToken);
    expect(list.body.every((t) => !("hash" in t) && !("token" in t))).toBe(true);
    expect(list.body[0].lastUsedAt).toEqual(expect.any(String));

    const first = list.body[0].id as string;
    expect((await s.admin(`/directories/acme/tokens/${first}`, { method: "DELETE" })).status).toBe(200);
    expect((await scim("acme", token)).status).toBe(401);
    expect((await scim("acme", newToken)).status).toBe(200);
    token = newToken;

    const soon = new Date(Date.now() + 1500).toISOString();
    const short = await json(await s.admin("/directories/acme/tokens", { method: "POST", body: JSON.stringify({ label: "short", expiresAt: soon }) }));
    const shortToken = short.body.token as unknown as string;
    expect((await scim("acme", shortToken)).status).toBe(200);
    const refused = await waitFor(async () => { const r = await scim("acme", shortToken); return r.status === 401 ? r : undefined; }, 10000, "expired token refused");
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await refused.json()).toMatchObject({ status: "401" });
    expect((await s.admin("/directories/acme/tokens", { method: "POST", body: JSON.stringify({ expiresAt: "2001-01-01T00:00:00Z" }) })).status).toBe(400);
  });

  it("should change a runtime directory's settings, validated, and keep config-file directories read-only", async () => {
    expect((await s.admin("/directories/acme", { method: "PATCH", body: JSON.stringify({ displayName: "Acme Inc." }) })).status).toBe(200);
    expect((await json(await s.admin("/directories/acme"))).body).toMatchObject({ displayName: "Acme Inc." });
    const bad = await json(await s.admin("/directories/acme", { method: "PATCH", body: JSON.stringify({ concurrency: -1 }) }));
    expect(bad.status).toBe(400);
    expect(bad.body.issues).toEqual([expect.stringMatching(/^- concurrency: /)]);
    expect((await json(await s.admin("/directories/acme"))).body).toMatchObject({ displayName: "Acme Inc." });
    const ro = await json(await s.admin("/directories/wf", { method: "PATCH", body: JSON.stringify({ displayName: "x" }) }));
    expect(ro.status).toBe(409);
    expect(ro.body.error).toMatch(/from config/);
    // the worker still syncs acme after the change
    expect((await scim("acme", token, "POST", "/Users", userBody("bob@acme.example"))).status).toBe(201);
    await waitFor(() => onPlatform("bob@acme.example"), 15000, "bob on the platform");
  });

  it("should answer 403 with a SCIM error while disabled, lose nothing, and sync again once enabled", async () => {
    expect((await s.admin("/directories/acme/disable", { method: "POST" })).status).toBe(200);
    const refused = await scim("acme", token, "POST", "/Users", userBody("cat@acme.example"));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "403", detail: expect.stringMatching(/disabled/) });
    expect((await scim("acme", "wrong-token")).status).toBe(401); // disabled says nothing to a wrong token
    expect((await json(await s.admin("/directories/acme"))).body).toMatchObject({ health: "disabled", disabled: true, users: 2 });
    expect(await e.users.count("acme")).toBe(2);
    expect((await s.admin("/directories/acme/enable", { method: "POST" })).status).toBe(200);
    expect((await scim("acme", token, "POST", "/Users", userBody("cat@acme.example"))).status).toBe(201);
    await waitFor(() => onPlatform("cat@acme.example"), 15000, "cat on the platform");
  });

  it("should delete only a disabled directory, only when told what happens on the platform, and purge every key", async () => {
    expect((await s.admin("/directories/acme?platform=leave", { method: "DELETE" })).status).toBe(409); // still enabled
    expect((await s.admin("/directories/wf?platform=leave", { method: "DELETE" })).status).toBe(409); // from config
    await s.admin("/directories/acme/disable", { method: "POST" });
    const unsaid = await json(await s.admin("/directories/acme", { method: "DELETE" }));
    expect(unsaid.status).toBe(400);
    expect(unsaid.body.error).toMatch(/platform=leave/);
    expect((await keysOf(`${e.prefix}:{acme}:*`)).length).toBeGreaterThan(0);

    const jobStates = ["waiting", "prioritized", "delayed", "completed", "failed", "active"] as const;
    expect((await e.queues.jobsOf("acme", [...jobStates])).length).toBeGreaterThan(0);
    const del = await json(await s.admin("/directories/acme?platform=leave", { method: "DELETE" }));
    expect(del.status).toBe(200);
    expect(await keysOf(`${e.prefix}:{acme}:*`)).toEqual([]);
    expect(await e.queues.jobsOf("acme", [...jobStates])).toEqual([]); // its jobs left the shared shard
    expect(await e.redis.hexists(`${e.prefix}:directories`, "acme")).toBe(0);
    expect((await s.admin("/directories/acme")).status).toBe(404);
    expect((await scim("acme", token)).status).toBe(401);
    expect(await onPlatform("ann@acme.example")).toBeDefined(); // left as it was
    // config-file directories are untouched
    expect((await e.scim("wf").get("/Users")).status).toBe(200);
  });
});
