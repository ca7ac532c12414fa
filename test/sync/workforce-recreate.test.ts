import { startSyncEnv, waitFor, PLATFORM_KEY, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv(); });
afterAll(async () => e.close());

describe("workforce: a platform user deleted behind the bridge's back", () => {
  it("should be re-created on the next change and go back into its groups", async () => {
    const u = await e.scim("wf").post("/Users", userBody("recreated@example.com"));
    const g = await e.scim("wf").post("/Groups", { displayName: "Recreated Group", members: [{ value: u.body.id }] });
    const platformGroup = async () => (await e.simState()).scim.groups.find((x) => x.displayName === "Recreated Group");
    const first = await waitFor(async () => {
      const st = await e.state.get("wf", "user", u.body.id);
      const pg = await platformGroup();
      return st.platformId && pg?.members.some((m) => m.value === st.platformId) && st.platformId;
    }, 10000, "user in its platform group");

    // someone deletes the user on the platform
    const del = await fetch(`${e.sim.baseUrl}/scim/v2/Users/${first}`, { method: "DELETE", headers: { Authorization: `Bearer ${PLATFORM_KEY}` } });
    expect(del.status).toBe(204);
    // the IdP changes the user: the replace answers 404, the bridge creates it again
    await e.scim("wf").patch(`/Users/${u.body.id}`, { Operations: [{ op: "replace", path: "title", value: "Back" }] });
    const second = await waitFor(async () => {
      const st = await e.state.get("wf", "user", u.body.id);
      return st.platformId && st.platformId !== first && st.platformId;
    }, 10000, "new platform id");
    await waitFor(async () => (await platformGroup())?.members.some((m) => m.value === second), 10000, "re-created user back in its group");
    expect((await e.simState()).scim.users.filter((x) => x.userName === "recreated@example.com")).toHaveLength(1);
    expect(g.status).toBe(201);
  });
});
