/**
 * A large group (scim.largeGroupMembers, here 2) is not in the reverse index, so a user's reconcile finds
 * it through the group's member hash (markMembersChanged, deleteUser). DESIGN §2 still holds for it: a
 * deactivated user leaves the platform group, a reactivated one comes back, a deleted one leaves for good.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, simGroup, waitStatus } from "../helpers/sync-wait";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv({ config: { scim: { largeGroupMembers: 2 } } }); });
afterAll(async () => e.close());

describe("workforce target: members of a large group", () => {
  it("should take a deactivated user out of the platform group, add it back on reactivation, and drop it on delete", async () => {
    const stay = await createUser(e, "wf", "large.stays@example.com");
    const goes = await createUser(e, "wf", "large.goes@example.com");
    const gid = await createGroup(e, "wf", "Large Team", [stay, goes]);
    expect(await e.redis.smembers(`${e.prefix}:{wf}:lg`)).toEqual([gid]);
    const pids = { stay: (await waitStatus(e, "wf", "user", stay, "synced")).platformId, goes: (await waitStatus(e, "wf", "user", goes, "synced")).platformId };
    const members = async () => ((await simGroup(e, "Large Team"))?.members ?? []).map((m) => m.value).sort();
    await waitFor(async () => (await members()).length === 2, 10000, "both members on the platform");

    await e.scim("wf").patch(`/Users/${goes}`, { Operations: [{ op: "replace", value: { active: false } }] });
    await waitStatus(e, "wf", "user", goes, "deprovisioned");
    await waitFor(async () => JSON.stringify(await members()) === JSON.stringify([pids.stay]), 10000, "the deactivated user to leave the group");

    await e.scim("wf").patch(`/Users/${goes}`, { Operations: [{ op: "replace", value: { active: true } }] });
    await waitFor(async () => JSON.stringify(await members()) === JSON.stringify([pids.stay, pids.goes].sort()), 10000, "the reactivated user back in the group");

    expect((await e.scim("wf").delete(`/Users/${goes}`)).status).toBe(204);
    await waitFor(async () => JSON.stringify(await members()) === JSON.stringify([pids.stay]), 10000, "the deleted user to leave the group");
    expect((await e.state.get("wf", "group", gid)).status).toBe("synced");
  });
});
