/**
 * Full resync of an embed directory: no drift → no write call and everything unchanged; an embed-tenant
 * group the bridge created and the IdP no longer has is deleted; a provisioned user the store no longer
 * has is deprovisioned (the contract cannot list external users, so the bridge's sync state names them).
 */
import { dropGroupBehindBridge, dropUserBehindBridge, resyncThroughAdmin, adminConfig, writes } from "../helpers/resync";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";

const TENANT = "em-tenant";
const GROUP_SCHEMA = ["urn:ietf:params:scim:schemas:core:2.0:Group"];
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

let e: SyncEnv;
const ids: Record<string, string> = {};
const groupIds: Record<string, string> = {};

beforeAll(async () => {
  // the safeguard would hold 2 deprovisions of 6 managed (33%): this test is about what a resync repairs,
  // the safeguard has its own (resync-safeguard.test.ts)
  e = await startSyncEnv({ config: adminConfig, em: { platform: { pageSize: 2 }, safety: { maxDeprovisionPerResync: { count: 500, percent: 100 } } } });
  for (const n of ["a", "b", "c"]) {
    const res = await e.scim("em").post("/Users", userBody(`er.${n}`));
    expect(res.status).toBe(201);
    ids[n] = res.body.id;
  }
  for (const [name, members] of [["ER Keep", ["a", "b"]], ["ER Gone", ["c"]], ["ER Extra", ["a"]]] as const) {
    const g = await e.scim("em").post("/Groups", { schemas: GROUP_SCHEMA, displayName: name, members: members.map((m) => ({ value: ids[m] })) });
    expect(g.status).toBe(201);
    groupIds[name] = g.body.id;
  }
  await waitFor(async () => (await e.simState()).tenants[TENANT]?.externalUsers["er.c"]?.groups.length === 1, 10000, "memberships applied");
  await waitIdle(e, "em");
});
afterAll(async () => e.close());

const tenant = async () => (await e.simState()).tenants[TENANT];

describe("full resync (embed)", () => {
  it("should make no write call and count every user and group unchanged when nothing drifted", async () => {
    const before = await writes(e);
    const p = await resyncThroughAdmin(e, "em");
    expect(p).toMatchObject({ status: "done", total: 6, done: 6, unchanged: 6, created: 0, updated: 0, deactivated: 0, deleted: 0, failed: 0 });
    expect(await writes(e)).toBe(before);
  });

  it("should delete an embed group the bridge created and the IdP no longer has, and deprovision a user the store lost", async () => {
    // "ER Gone" is emptied the normal way, then vanishes from the store with no reconcile (a lost IdP delete)
    await e.scim("em").patch(`/Groups/${groupIds["ER Gone"]}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${ids.c}"]` }] });
    await waitFor(async () => (await tenant()).externalUsers["er.c"].groups.length === 0, 10000, "c left ER Gone");
    await waitIdle(e, "em");
    await dropGroupBehindBridge(e, "em", groupIds["ER Gone"]);
    await e.state.remove("em", "group", groupIds["ER Gone"]);
    // and user c vanishes from the store the same way (its sync state remembers it was provisioned)
    await dropUserBehindBridge(e, "em", ids.c);
    expect((await tenant()).groups.map((g) => g.name)).toContain("ER Gone");

    const p = await resyncThroughAdmin(e, "em");
    expect(p).toMatchObject({ status: "done", total: 5, done: 5, unchanged: 4, deactivated: 1, deleted: 1, created: 0, updated: 0, failed: 0 });
    const t = await tenant();
    expect(t.groups.map((g) => g.name).sort()).toEqual(["ER Extra", "ER Keep"]);
    expect(t.externalUsers["er.c"]).toMatchObject({ groups: [], userAttributes: {} });
    expect(await e.state.get("em", "user", ids.c)).toMatchObject({ status: "deprovisioned" });
    expect((await e.simState()).counters.endpoints["DELETE /v1/embed-tenants/:embedTenantName/groups/:id"]?.writes).toBe(1);
  });

  it("should leave the repaired directory alone on the next resync", async () => {
    await waitIdle(e, "em");
    const before = await writes(e);
    const p = await resyncThroughAdmin(e, "em");
    expect(p).toMatchObject({ total: 5, unchanged: 5, deleted: 0, deactivated: 0, failed: 0 });
    expect(await writes(e)).toBe(before);
  });
});
