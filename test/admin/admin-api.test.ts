import { startSyncEnv, waitFor, PLATFORM_KEY, TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";

let e: SyncEnv;
let s: BridgeServer;
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

beforeAll(async () => {
  e = await startSyncEnv();
  s = await startBridgeServer(e);
});
afterAll(async () => { await s.close(); await e.close(); });

/** Makes the simulator hold `employeeNumber` as a string in the bridge's embed tenant, so the bridge's number definition fails. */
async function plantTypeConflict(): Promise<void> {
  const res = await fetch(`${e.sim.baseUrl}/v1/embed/generate-session`, {
    method: "POST", headers: { Authorization: `Api-Key ${PLATFORM_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ deploymentId: 1, externalId: "planted@example.com", embedTenantName: "em-tenant", creatorMode: true,
      userAttributeDefinitions: [{ name: "employeeNumber", type: "string" }] }),
  });
  expect(res.status).toBe(200);
}

describe("admin API", () => {
  it("should refuse SCIM tokens and missing tokens with 401", async () => {
    expect((await fetch(`${s.url}/admin/directories`)).status).toBe(401);
    expect((await fetch(`${s.url}/admin/directories`, { headers: { Authorization: `Bearer ${TOKENS.wf}` } })).status).toBe(401);
    expect((await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(401);
  });

  it("should list directories with counts by sync status, queue depth, last sync and usage", async () => {
    const created = await e.scim("wf").post("/Users", userBody("listed@example.com"));
    // the job records the directory's last sync just after the item's state: wait for both
    await waitFor(async () => (await e.state.get("wf", "user", created.body.id)).status === "synced" && !!(await e.state.meta("wf")).lastSyncAt);
    const res = await s.admin("/directories");
    expect(res.status).toBe(200);
    const body = await res.json() as Array<Record<string, unknown>>;
    const wf = body.find((d) => d.id === "wf")!;
    expect(wf).toMatchObject({ target: "workforce", users: 1, items: { synced: 1, failed: 0 }, queue: { paused: false }, paused: null });
    expect(typeof wf.lastSyncAt).toBe("string");
    expect(body.find((d) => d.id === "em")).toMatchObject({ target: "embed", externalUsers: { used: 0, limit: 10000, percent: 0, warning: false } });
    expect((await s.admin("/directories/nope")).status).toBe(404);
  });

  it("should show a failed item with the platform's message, and sync it when retried after the cause is fixed", async () => {
    await plantTypeConflict();
    const u = await e.scim("em").post("/Users", userBody("conflicted@example.com", { [ENT]: { employeeNumber: "7" } }));
    await waitFor(async () => (await e.state.get("em", "user", u.body.id)).status === "failed", 10000, "failed item");
    const failed = await (await s.admin("/directories/em/failed")).json() as Array<Record<string, unknown>>;
    expect(failed).toEqual([expect.objectContaining({ kind: "user", id: u.body.id, name: "conflicted@example.com", lastError: expect.stringMatching(/^cannot change type: .*user attribute "employeeNumber" as number \(embed\.attributeMapping\[1\], from SCIM urn:[^)]*:employeeNumber\)/) })]);
    expect(await (await s.admin("/directories/em")).json()).toMatchObject({ health: "failing", items: { failed: 1 } });

    await fetch(`${e.sim.url}/_sim/reset`, { method: "POST", headers: { "x-sim-token": "test-sim-token" } }); // the fix
    const retry = await s.admin("/directories/em/retry", { method: "POST" });
    expect(await retry.json()).toEqual({ retried: 1 });
    await waitFor(async () => (await e.state.get("em", "user", u.body.id)).status === "synced", 10000, "synced after retry");
    expect((await e.simState()).tenants["em-tenant"].externalUsers["conflicted@example.com"].userAttributes).toEqual({ employeeNumber: 7 });
  });

  it("should retry one item by kind and id", async () => {
    const res = await s.admin("/directories/wf/items/user/not-there/retry", { method: "POST" });
    expect(await res.json()).toEqual({ retried: 1 });
    expect((await s.admin("/directories/wf/items/widget/x/retry", { method: "POST" })).status).toBe(400);
  });

  it("should start a resync that repairs a wiped platform, then one with no drift and no write call", async () => {
    const resync = async () => {
      // the progress of the previous resync stays readable until the worker starts the new one: wait for a new id
      const before = await (await s.admin("/directories/wf/resync")).json() as { id?: string };
      expect((await s.admin("/directories/wf/resync", { method: "POST" })).status).toBe(202);
      return waitFor(async () => {
        const p = await (await s.admin("/directories/wf/resync")).json() as { id?: string; status?: string };
        return p.id !== before.id && p.status === "done" && p;
      }, 15000, "resync done");
    };
    const users = await e.users.count("wf");
    expect(users).toBeGreaterThan(0);
    await fetch(`${e.sim.url}/_sim/reset`, { method: "POST", headers: { "x-sim-token": "test-sim-token" } });
    expect(await resync()).toMatchObject({ status: "done", phase: "done", total: users, done: users, created: users, failed: 0 });
    expect((await e.simState()).scim.users).toHaveLength(users);

    const writesBefore = (await e.simState()).counters.total.writes;
    expect(await resync()).toMatchObject({ status: "done", total: users, done: users, unchanged: users, created: 0, updated: 0 });
    expect((await e.simState()).counters.total.writes).toBe(writesBefore);
  });

  it("should resume a paused directory", async () => {
    await e.state.setMeta("wf", { paused: "platform answered 401 (test)" });
    expect(await (await s.admin("/directories/wf")).json()).toMatchObject({ health: "paused", paused: { reason: "platform answered 401 (test)" } });
    expect((await s.admin("/directories/wf/resume", { method: "POST" })).status).toBe(200);
    expect(await (await s.admin("/directories/wf")).json()).toMatchObject({ paused: null, queue: { paused: false } });
  });
});
