/**
 * Large groups (scim.largeGroupMembers, here 3; scim.largeGroupsPerDirectory, here 1) are not in the
 * reverse index: once a group reaches the size, its member PATCHes queue nothing for it and it has no
 * entry in its members' reverse-index sets. What a SCIM client sees must not change: a user's `groups`,
 * the `members.value eq` filter on /Groups and the clean-up of a user or group delete stay exact, for
 * members from before the group became large and after. The background drain is off, so any pending
 * reverse-index change must be applied by the readers themselves.
 */
import { membershipCalls } from "../helpers/membership";
import { startScim, type TestScim } from "../helpers/scim-app";

let s: TestScim;
const { user, group, members, groupsOf, groupsWith, memberValues, deleteUser, deleteGroup, pending } = membershipCalls(() => s);
const key = (suffix: string) => `${s.prefix}:{acme}:${suffix}`;
const large = async () => (await s.redis.smembers(s.groups.keys("acme").largeGroups)).sort();

beforeAll(async () => {
  s = await startScim({ scim: { largeGroupMembers: 3, largeGroupsPerDirectory: 1 } });
  s.groups.memberOf.request = () => undefined;
});
afterAll(async () => s.close());

describe("a group that reaches scim.largeGroupMembers", () => {
  let big: string;
  let small: string;
  let u: string[];

  beforeAll(async () => {
    u = [];
    for (let i = 0; i < 6; i++) u.push(await user(`lg.user${i}`));
    small = await group("LG Small", [u[0]]);
    big = await group("LG Big", [u[0], u[1]]);
  });

  it("should leave the reverse index, with its earlier members' pending joins applied first", async () => {
    expect(await large()).toEqual([]);
    expect(await pending()).toBeGreaterThan(0); // the joins of both creates, not yet in the reverse index
    expect((await members(big, "add", [u[2]])).status).toBe(204);
    expect(await large()).toEqual([big]);
    expect(await pending()).toBe(0); // drained at the change, and the write itself queued nothing
    for (const m of u.slice(0, 3)) expect(await s.redis.sismember(key(`mg:${m}`), big)).toBe(0);
    expect(await s.redis.sismember(key(`mg:${u[0]}`), small)).toBe(1);
  });

  it("should queue nothing for its member changes, and still show every member's groups exactly", async () => {
    expect((await members(big, "add", [u[3], u[4]])).status).toBe(204);
    expect((await members(big, "remove", [u[1]])).status).toBe(204);
    expect(await pending()).toBe(0);
    expect(await groupsOf(u[0])).toEqual([big, small].sort());
    expect(await groupsOf(u[1])).toEqual([]);
    expect(await groupsOf(u[3])).toEqual([big]);
    expect(await groupsOf(u[5])).toEqual([]);
    expect(await groupsWith(u[4])).toEqual([big]);
    expect(await groupsWith(u[0])).toEqual([big, small].sort());
    expect(await groupsWith(u[1])).toEqual([]);
  });

  it("should stay large when it shrinks below the size", async () => {
    expect((await members(big, "remove", [u[2], u[3], u[4]])).status).toBe(204);
    expect(await memberValues(big)).toEqual([u[0]]);
    expect(await large()).toEqual([big]);
    expect(await pending()).toBe(0);
    expect(await groupsOf(u[2])).toEqual([]);
    expect((await members(big, "add", [u[2], u[3]])).status).toBe(204);
    expect(await groupsOf(u[2])).toEqual([big]);
  });

  it("should not take reverse-index entries an earlier release left for a large group for memberships", async () => {
    // an older server, side by side during a rolling restart, indexes the large group as any other
    await s.redis.sadd(key(`mg:${u[5]}`), big);
    await s.redis.xadd(key("mgq"), "*", "g", big, "a", u[4], "r", "");
    expect(await groupsOf(u[5])).toEqual([]);
    expect(await groupsWith(u[4])).toEqual([]);
    expect(await pending()).toBe(0);
    expect(await s.redis.sismember(key(`mg:${u[4]}`), big)).toBe(0);
    await s.redis.srem(key(`mg:${u[5]}`), big);
  });

  it("should not make a second group large past scim.largeGroupsPerDirectory: it stays in the reverse index", async () => {
    const second = await group("LG Second", u.slice(0, 4));
    expect(await large()).toEqual([big]);
    expect(await pending()).toBeGreaterThan(0);
    expect(await groupsOf(u[3])).toEqual([big, second].sort());
    expect(await s.redis.sismember(key(`mg:${u[3]}`), second)).toBe(1);
    expect(await deleteGroup(second)).toBe(204);
    expect(await groupsOf(u[3])).toEqual([big]);
  });

  it("should take a deleted user out of a large group", async () => {
    expect(await deleteUser(u[3])).toBe(204);
    expect(await memberValues(big)).toEqual([u[0], u[2]].sort());
    expect(await s.redis.exists(key(`mg:${u[3]}`))).toBe(0);
  });

  it("should take a group that is a member of a large group out of it when that group is deleted", async () => {
    const nested = await group("LG Nested");
    expect((await members(big, "add", [nested])).status).toBe(204);
    expect(await groupsWith(nested)).toEqual([big]);
    expect(await deleteGroup(nested)).toBe(204);
    expect(await memberValues(big)).toEqual([u[0], u[2]].sort());
  });

  it("should forget a deleted large group: no user lists it, and the directory may make another group large", async () => {
    // indexed while the directory had its one large group, and by then over 4× the size: it stays indexed
    const many: string[] = [];
    for (let i = 0; i < 13; i++) many.push(await user(`lg.many${i}`));
    const wide = await group("LG Wide", many);
    expect(await deleteGroup(big)).toBe(204);
    expect(await large()).toEqual([]);
    expect(await groupsOf(u[0])).toEqual([small]);
    expect(await groupsWith(u[2])).toEqual([]);
    expect((await members(wide, "add", [u[5]])).status).toBe(204);
    expect(await large()).toEqual([]);
    expect(await s.redis.sismember(key(`mg:${many[0]}`), wide)).toBe(1);
    expect((await members(small, "add", [u[4], u[5]])).status).toBe(204);
    expect(await large()).toEqual([small]);
    expect(await groupsOf(u[5])).toEqual([small, wide].sort());
  });
});
