/**
 * A large group (scim.largeGroupMembers, here 2) is not in the reverse index, so a user's reconcile finds
 * it through the group's member hash (markMembersChanged, deleteUser). DESIGN §2 still holds for it: a
 * deactivated user leaves the platform group, a reactivated one comes back, a deleted one leaves for good.
 */
import { groupFollowsMemberLifecycle } from "../helpers/member-lifecycle";
import { startSyncEnv, type SyncEnv } from "../helpers/sync-env";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv({ config: { scim: { largeGroupMembers: 2 } } }); });
afterAll(async () => e.close());

describe("workforce target: members of a large group", () => {
  it("should take a deactivated user out of the platform group, add it back on reactivation, and drop it on delete", async () => {
    const gid = await groupFollowsMemberLifecycle(e, "Large Team", { stays: "large.stays@example.com", goes: "large.goes@example.com" });
    expect(await e.redis.smembers(e.groups.keys("wf").largeGroups)).toEqual([gid]);
  });
});
