/**
 * Issue 4 §3: "An existing platform user with the same userName is adopted, not duplicated." Groups are
 * adopted the same way by displayName. Issue 11 §1: "No read before a write that usually succeeds. Create
 * first; on 409 `uniqueness` look the user or group up once and adopt it ... Keep what the platform told
 * us (ids) so nothing is looked up twice."
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, endpointCalls, simGroup, simUser, waitStatus } from "../helpers/sync-wait";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv(); });
afterAll(async () => e.close());

/** Creates a resource straight on the platform, as its own admin would, with the platform key. */
async function platformPost(path: string, body: object): Promise<{ id: string }> {
  const res = await fetch(`${e.sim.baseUrl}/scim/v2${path}`, {
    method: "POST", headers: { authorization: `Bearer ${PLATFORM_KEY}`, "content-type": "application/scim+json" }, body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

describe("workforce target: adoption", () => {
  it("should adopt a platform user with the same userName (any case) instead of creating a duplicate", async () => {
    const existing = await platformPost("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "Adopt.Me@Example.com", displayName: "Made on the platform" });
    const postsBefore = (await e.simState()).counters.endpoints["POST /scim/v2/Users"].writes;
    const readsBefore = await endpointCalls(e, "GET /scim/v2/Users");

    const id = await createUser(e, "wf", "adopt.me@example.com", { displayName: "From the IdP" });
    const st = await waitStatus(e, "wf", "user", id, "synced");

    expect(st.platformId).toBe(existing.id);
    const s = await e.simState();
    const same = s.scim.users.filter((u) => u.userName.toLowerCase() === "adopt.me@example.com");
    expect(same).toHaveLength(1);
    expect(same[0]).toMatchObject({ id: existing.id, userName: "adopt.me@example.com", displayName: "From the IdP", externalId: `wf:${id}`, active: true });
    // one create answered 409 uniqueness, one look-up, one replace of the adopted user
    expect(s.counters.endpoints["POST /scim/v2/Users"].writes).toBe(postsBefore + 1);
    expect(await endpointCalls(e, "GET /scim/v2/Users") - readsBefore).toBe(1);

    // the platform id is kept: a later change goes straight to the adopted user, with no look-up
    const res = await e.scim("wf").patch(`/Users/${id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "displayName", value: "Renamed" }] });
    expect(res.status).toBe(200);
    await waitFor(async () => (await simUser(e, "adopt.me@example.com"))?.displayName === "Renamed", 15000, "the rename on the platform");
    expect(await endpointCalls(e, "GET /scim/v2/Users") - readsBefore).toBe(1);
  });

  it("should create a new user and a new group with no read before the write", async () => {
    const readsBefore = (await endpointCalls(e, "GET /scim/v2/Users")) + (await endpointCalls(e, "GET /scim/v2/Groups"));
    const uid = await createUser(e, "wf", "fresh.user@example.com");
    await waitStatus(e, "wf", "user", uid, "synced");
    const gid = await createGroup(e, "wf", "Fresh Group", [uid]);
    await waitStatus(e, "wf", "group", gid, "synced");
    expect((await endpointCalls(e, "GET /scim/v2/Users")) + (await endpointCalls(e, "GET /scim/v2/Groups")) - readsBefore).toBe(0);
    expect((await simGroup(e, "Fresh Group"))?.members).toHaveLength(1);
  });

  it("should adopt a platform group with the same displayName and apply its members there", async () => {
    const existing = await platformPost("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Adopted Group" });
    const uid = await createUser(e, "wf", "adopted.member@example.com");
    const { platformId } = await waitStatus(e, "wf", "user", uid, "synced");

    const readsBefore = await endpointCalls(e, "GET /scim/v2/Groups");
    const gid = await createGroup(e, "wf", "Adopted Group", [uid]);
    const st = await waitStatus(e, "wf", "group", gid, "synced");
    expect(await endpointCalls(e, "GET /scim/v2/Groups") - readsBefore).toBe(1);

    expect(st.platformId).toBe(existing.id);
    const groups = (await e.simState()).scim.groups.filter((g) => g.displayName === "Adopted Group");
    expect(groups).toHaveLength(1);
    expect((await simGroup(e, "Adopted Group"))?.members.map((m) => m.value)).toEqual([platformId]);
  });
});
