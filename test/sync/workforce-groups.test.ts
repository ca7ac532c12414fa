/**
 * Issue 4 §3: "groups created, renamed, deleted; memberships applied as deltas in batches". The directory's
 * `platform.memberBatchSize` is 3 here, so the simulator's PATCH count shows the batching.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, endpointCalls, simGroup, waitAllSynced, waitStatus } from "../helpers/sync-wait";
import { directoryQueue } from "../helpers/directory-queue";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv({ wf: { platform: { memberBatchSize: 3 } } }); });
afterAll(async () => e.close());

const PATCH_GROUP = "PATCH /scim/v2/Groups/:id";

async function users(prefix: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await createUser(e, "wf", `${prefix}${i}@example.com`));
  await waitAllSynced(e, "wf", "user", ids);
  return ids;
}

async function platformIds(ids: string[]): Promise<string[]> {
  return (await e.state.platformIds("wf", "user", ids)).map(String).sort();
}

describe("workforce target: groups", () => {
  it("should create the platform group and add 10 members in 4 PATCH calls of at most 3", async () => {
    const ids = await users("batch", 10);
    const patchesBefore = await endpointCalls(e, PATCH_GROUP);
    const gid = await createGroup(e, "wf", "Batched", ids);
    const st = await waitStatus(e, "wf", "group", gid, "synced");

    const g = await simGroup(e, "Batched");
    expect(g?.id).toBe(st.platformId);
    expect(g!.members.map((m) => m.value).sort()).toEqual(await platformIds(ids));
    expect(await endpointCalls(e, PATCH_GROUP)).toBe(patchesBefore + 4);
    expect((await e.state.members(e.state.appliedMembersKey("wf", gid))).sort()).toEqual([...ids].sort());
  });

  it("should apply a member change as a delta: only the added and removed members are sent", async () => {
    const ids = await users("delta", 7);
    const gid = await createGroup(e, "wf", "Delta", ids.slice(0, 6));
    await waitStatus(e, "wf", "group", gid, "synced");
    await waitFor(async () => (await simGroup(e, "Delta"))?.members.length === 6, 10000, "6 members");
    const patchesBefore = await endpointCalls(e, PATCH_GROUP);

    // remove two, add one: one remove batch (2 ≤ 3) and one add batch
    const res = await e.scim("wf").patch(`/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [
        { op: "remove", path: `members[value eq "${ids[0]}"]` },
        { op: "remove", path: `members[value eq "${ids[1]}"]` },
        { op: "add", path: "members", value: [{ value: ids[6] }] },
      ],
    });
    expect(res.status).toBeLessThan(300);
    const expected = await platformIds(ids.slice(2));
    await waitFor(async () => JSON.stringify((await simGroup(e, "Delta"))?.members.map((m) => m.value).sort()) === JSON.stringify(expected), 10000, "the delta on the platform");
    await waitFor(async () => (await directoryQueue(e.queues, "wf").getActiveCount()) === 0 && (await directoryQueue(e.queues, "wf").getWaitingCount()) === 0);
    expect(await endpointCalls(e, PATCH_GROUP)).toBe(patchesBefore + 2);
  });

  it("should rename the platform group when the IdP renames it, keeping its id and members", async () => {
    const ids = await users("rename", 2);
    const gid = await createGroup(e, "wf", "Old Name", ids);
    const { platformId } = await waitStatus(e, "wf", "group", gid, "synced");
    await waitFor(async () => (await simGroup(e, "Old Name"))?.members.length === 2);

    await e.scim("wf").patch(`/Groups/${gid}`, { Operations: [{ op: "replace", path: "displayName", value: "New Name" }] });
    const renamed = await waitFor(() => simGroup(e, "New Name"), 10000, "the renamed group");
    expect(renamed).toMatchObject({ id: platformId });
    expect(renamed!.members.map((m) => m.value).sort()).toEqual(await platformIds(ids));
    expect(await simGroup(e, "Old Name")).toBeUndefined();
  });

  it("should delete the platform group when the IdP deletes it and forget its sync state", async () => {
    const ids = await users("gone", 1);
    const gid = await createGroup(e, "wf", "Doomed", ids);
    await waitStatus(e, "wf", "group", gid, "synced");
    expect((await e.scim("wf").delete(`/Groups/${gid}`)).status).toBe(204);
    await waitFor(async () => (await simGroup(e, "Doomed")) === undefined, 10000, "the platform group to go");
    await waitFor(async () => (await e.state.get("wf", "group", gid)).status === undefined, 10000, "the sync state to go");
    // the users stay
    expect((await e.state.get("wf", "user", ids[0])).status).toBe("synced");
  });
});
