import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { adminConfig, resyncThroughAdmin } from "../helpers/resync";
import { userBody } from "../helpers/expect-scim";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv({ config: adminConfig }); });
afterAll(async () => e.close());

describe("full resync after a group member was deactivated", () => {
  it("should see no drift (a deactivated user left its platform group) and make no extra call", async () => {
    const a = await e.scim("wf").post("/Users", userBody("stays@example.com"));
    const b = await e.scim("wf").post("/Users", userBody("leaves@example.com"));
    await e.scim("wf").post("/Groups", { displayName: "Deactivation Group", members: [{ value: a.body.id }, { value: b.body.id }] });
    await e.scim("wf").patch(`/Users/${b.body.id}`, { Operations: [{ op: "replace", value: { active: false } }] });
    const group = async () => (await e.simState()).scim.groups.find((g) => g.displayName === "Deactivation Group");
    await waitFor(async () => {
      const st = await e.state.get("wf", "user", a.body.id);
      return (await group())?.members.length === 1 && (await group())?.members[0].value === st.platformId;
    }, 10000, "only the active member on the platform");

    const before = (await e.simState()).counters;
    const summary = await resyncThroughAdmin(e, "wf");
    expect(summary).toMatchObject({ total: 3, done: 3, unchanged: 3, failed: 0 });
    const after = (await e.simState()).counters;
    expect(after.total.writes).toBe(before.total.writes);
    const groupReads = (c: typeof after) => c.endpoints["GET /scim/v2/Groups/:id"]?.reads ?? 0;
    expect(groupReads(after)).toBe(groupReads(before));
  });
});
