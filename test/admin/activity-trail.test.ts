/**
 * The activity trail of a user (issue 13 §4) and the status page an operator reads at a glance (§5),
 * through the real server: a user whose sync fails on the platform and is fixed shows, in the admin API
 * and on the item view, what the IdP sent (attribute names, never values), each platform call with its
 * status and message, the failure, and after the fix what was applied. The status page links the
 * failure to that view, finds the user by name, and draws its 24-hour charts from the per-minute counters.
 * HTML is asserted on the server's answers (supertest-style); test/admin/status-page.test.ts drives a browser.
 */
import { startSyncEnv, waitFor, PLATFORM_KEY, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";

let e: SyncEnv;
let s: BridgeServer;
let id: string;
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const SECRET = "Pa55-never-in-a-trail";

beforeAll(async () => {
  e = await startSyncEnv();
  s = await startBridgeServer(e);
});
afterAll(async () => { await s.close(); await e.close(); });

const html = async (path: string) => {
  const res = await fetch(`${s.url}/admin${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, Accept: "text/html" } });
  return { status: res.status, text: await res.text() };
};
type Trail = { name: string; sync: { status: string; lastError: string | null }; events: Array<{ type: string; method?: string; path?: string; status?: number; message?: string; attributes?: string[]; outcome?: string }> };
const trail = async () => (await (await s.admin(`/directories/em/users/${id}/activity`)).json()) as Trail;

describe("activity trail and status page", () => {
  it("should record what the IdP sent (names only), each platform call and the failure", async () => {
    // the platform holds employeeNumber as a string, so the bridge's number definition is refused
    await fetch(`${e.sim.baseUrl}/v1/embed/generate-session`, {
      method: "POST", headers: { Authorization: `Api-Key ${PLATFORM_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ deploymentId: 1, externalId: "planted@example.com", embedTenantName: "em-tenant", creatorMode: true, userAttributeDefinitions: [{ name: "employeeNumber", type: "string" }] }),
    });
    const res = await e.scim("em").post("/Users", userBody("trail@example.com", { password: SECRET, [ENT]: { employeeNumber: "4242" } }));
    expect(res.status).toBe(201);
    id = res.body.id;
    await waitFor(async () => (await e.state.get("em", "user", id)).status === "failed", 10000, "failed item");
    const t = await waitFor(async () => { const x = await trail(); return x.events.some((ev) => ev.type === "failed") ? x : undefined; }, 10000, "failure in the trail");
    expect(t).toMatchObject({ name: "trail@example.com", sync: { status: "failed", lastError: expect.stringMatching(/^cannot change type/) } });
    const idp = t.events.find((ev) => ev.type === "idp")!;
    expect(idp).toMatchObject({ method: "POST", status: 201 });
    expect(idp.attributes).toEqual(expect.arrayContaining(["userName", "password", `${ENT}:employeeNumber`]));
    expect(t.events).toContainEqual(expect.objectContaining({ type: "call", method: "POST", status: 400, message: "cannot change type" }));
    expect(t.events[0]).toMatchObject({ type: "failed", message: expect.stringMatching(/^cannot change type/) }); // newest first
    const raw = JSON.stringify(t);
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain("4242");
  });

  it("should link the failure on the status page to the item view, which shows the timeline", async () => {
    const status = await html("/status/em");
    expect(status.status).toBe(200);
    expect(status.text).toContain(`href="/admin/status/em/users/${id}"`);
    const item = await html(`/status/em/users/${id}`);
    expect(item.status).toBe(200);
    expect(item.text).toContain("trail@example.com");
    expect(item.text).toMatch(/data-type="failed"[^]*cannot change type/);
    expect(item.text).toMatch(/<time datetime="[^"]+" title="[^"]+">(just now|\d+ s ago)<\/time>/);
    expect(item.text).not.toContain(SECRET);
    expect((await html(`/status/nope/users/${id}`)).status).toBe(404);
  });

  it("should find the user by userName and by displayName", async () => {
    await e.scim("em").patch(`/Users/${id}`, { Operations: [{ op: "replace", path: "displayName", value: "Trinity Trail" }] });
    for (const q of ["TRAIL@", "trinity"]) {
      const found = await html(`/status/em/search?q=${encodeURIComponent(q)}`);
      expect(found.text).toContain(`href="/admin/status/em/users/${id}"`);
    }
    expect((await html("/status/em/search?q=nobody-here")).text).toContain("Nothing matches");
    const g = await e.scim("em").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Trail Blazers" });
    expect((await html("/status/em/search?q=blazers")).text).toContain(`href="/admin/status/em/groups/${g.body.id}"`);
    const api = await (await s.admin("/directories/em/search?q=trail")).json();
    expect(api).toEqual([{ kind: "user", id, name: "trail@example.com" }, { kind: "group", id: g.body.id, name: "Trail Blazers" }]);
  });

  it("should name a group PATCH's operations in the group's trail (the route lets go of the body before its write)", async () => {
    const g = await e.scim("em").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Trail Patchers" });
    const res = await e.scim("em").patch(`/Groups/${g.body.id}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "add", path: "members", value: [{ value: id }] }, { op: "replace", path: "displayName", value: "Trail Patchers 2" }],
    });
    expect(res.status).toBe(204);
    const events = await waitFor(async () => {
      const t = (await (await s.admin(`/directories/em/groups/${g.body.id}/activity`)).json()) as Trail;
      const patches = t.events.filter((ev) => ev.type === "idp" && ev.method === "PATCH");
      return patches.length ? patches : undefined;
    }, 10000, "the PATCH in the group's trail");
    expect(events[0]).toMatchObject({ status: 204, attributes: ["add members", "replace displayName"] });
  });

  it("should show the fix in the trail once the cause is gone and the item is retried", async () => {
    await fetch(`${e.sim.url}/_sim/reset`, { method: "POST", headers: { "x-sim-token": "test-sim-token" } });
    await s.admin(`/directories/em/items/user/${id}/retry`, { method: "POST" });
    await waitFor(async () => (await e.state.get("em", "user", id)).status === "synced", 10000, "synced after the fix");
    const t = await waitFor(async () => { const x = await trail(); return x.events[0]?.type === "applied" ? x : undefined; }, 10000, "applied in the trail");
    expect(t.sync.status).toBe("synced");
    expect(t.events[0].outcome).toEqual(expect.any(String));
    expect(t.events.findIndex((ev) => ev.type === "applied")).toBeLessThan(t.events.findIndex((ev) => ev.type === "failed"));
    expect((await html(`/status/em/users/${id}`)).text).toMatch(/data-type="applied"/);
  });

  it("should keep only the newest activity.maxEvents events of a resource", async () => {
    const key = `${e.prefix}:{em}:a:u:${id}`;
    // 60 changes: their IdP events alone pass the cap (how many reconcile events they add depends on how
    // many of them one reconcile coalesces, which a loaded machine changes)
    for (let i = 0; i < 60; i++) await e.scim("em").patch(`/Users/${id}`, { Operations: [{ op: "replace", path: "title", value: `t${i}` }] });
    await waitFor(async () => (await e.redis.xlen(key)) === 50, 15000, "the trail capped at 50");
    expect(await e.redis.ttl(key)).toBeGreaterThan(0);
  });

  it("should draw 24-hour charts per directory from the per-minute counters, with times relative and exact on hover", async () => {
    // the worker writes its platform-call counts once a second: have it write them now, so the page is read
    // after the write (the whole file can run in about a second on a quick machine)
    await e.runtime!.flushCounters();
    for (const dir of ["wf", "em"]) expect((await html(`/status/${dir}`)).text).toContain('data-chart="changes from the IdP"');
    const em = (await html("/status/em")).text;
    const total = (title: string) => Number(new RegExp(`<strong>${title}</strong> per 15 min, UTC <span class="msg">24 h total ([\\d,]+) `).exec(em)![1]!.replace(/,/g, ""));
    expect(total("changes from the IdP")).toBeGreaterThanOrEqual(62); // the POST and the PATCHes above
    expect(total("platform calls")).toBeGreaterThan(0);
    expect(total("platform call failures")).toBeGreaterThan(0);
    expect(em).toMatch(/<svg [^>]*role="img" aria-label="changes from the IdP, last 24 hours, UTC"/);
    // each bar's span and value on hover, in the series' unit; a time axis in UTC hours; the scale's top
    expect(em).toMatch(/<title>\d\d:\d\d–\d\d:\d\d UTC: [1-9][\d,]* changes<\/title>/);
    expect(em).toMatch(/<text [^>]*>\d\d:\d\d<\/text>[^]*<text [^>]*>now<\/text>/);
    expect(em).toMatch(/<text [^>]*data-scale>[\d,]+ changes<\/text>/);
    expect(em).toMatch(/<time datetime="[^"]+" title="[^"]+">/);
  });

  it("should create a directory from the page and show its URL and token once", async () => {
    const form = (fields: Record<string, string>) => fetch(`${s.url}/admin/directories`, {
      method: "POST", headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    expect((await html("/status/new")).text).toContain("Create directory");
    // each problem next to the field it names, the typed values kept
    const bad = await (await form({ id: "Paged!", target: "workforce", "platform.baseUrl": "not a url", "platform.deploymentId": "x", "platform.apiKeyEnv": "TEST_PLATFORM_KEY" })).text();
    expect(bad).toMatch(/role="alert"[^]*Not created/);
    for (const field of ["id", "platform.baseUrl", "platform.deploymentId"]) expect(bad).toMatch(new RegExp(`data-error-for="${field.replace(".", "\\.")}">[^<]+`));
    expect(bad).not.toContain('data-error-for="platform.apiKeyEnv"');
    expect(bad).toContain('value="Paged!"');
    const badJson = await form({ id: "paged", more: "{not json" });
    expect(badJson.status).toBe(400);
    expect(await badJson.text()).toMatch(/data-error-for="more">not valid JSON/);
    const ok = await form({ id: "paged", target: "workforce", "platform.baseUrl": e.sim.baseUrl, "platform.deploymentId": "1", "platform.apiKeyEnv": "TEST_PLATFORM_KEY", more: JSON.stringify({ concurrency: 4 }) });
    expect(ok.status).toBe(201);
    const body = await ok.text();
    expect(body).toContain("https://bridge.example.com/scim/v2/paged");
    const token = /data-field="token">([^<]+)</.exec(body)![1];
    expect((await fetch(`${s.url}/scim/v2/paged/Users`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await html("/status")).text).toMatch(/data-directory="paged"[^]*runtime/);
  });
});
