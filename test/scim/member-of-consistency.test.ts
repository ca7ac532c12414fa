/**
 * The reverse index (which groups a user or group is in) is brought up to date after a member PATCH has
 * been answered, not inside it. What a SCIM reader sees must not change: a user's `groups`, the
 * `members.value eq` filter on /Groups and the membership clean-up of a user delete are exact right after
 * the PATCH answer — here with the background drain switched off, so only the read-side application of
 * pending changes can make them so — and the background drain empties the queue by itself.
 */
import { membershipCalls } from "../helpers/membership";
import { startScim, type TestScim } from "../helpers/scim-app";

let s: TestScim;
const { user, group, members, groupsOf, groupsWith, memberValues, deleteUser, deleteGroup, pending } = membershipCalls(() => s);

beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());

describe("the reverse index with the background drain off", () => {
  let request0: typeof s.groups.memberOf.request;
  beforeAll(() => {
    request0 = s.groups.memberOf.request.bind(s.groups.memberOf);
    s.groups.memberOf.request = () => undefined;
  });
  afterAll(() => { s.groups.memberOf.request = request0; });

  it("should show a user's groups exactly right after each member PATCH", async () => {
    const [u1, u2] = [await user("mo.one"), await user("mo.two")];
    const [g1, g2] = [await group("MO One"), await group("MO Two")];
    expect((await members(g1, "add", [u1, u2])).status).toBe(204);
    expect((await members(g2, "add", [u1])).status).toBe(204);
    expect(await pending()).toBeGreaterThan(0);
    expect(await groupsOf(u1)).toEqual([g1, g2].sort());
    expect(await groupsOf(u2)).toEqual([g1]);
    // added and removed again before anyone read: no trace
    expect((await members(g2, "add", [u2])).status).toBe(204);
    expect((await members(g2, "remove", [u2])).status).toBe(204);
    expect((await members(g1, "remove", [u1])).status).toBe(204);
    expect(await groupsOf(u2)).toEqual([g1]);
    expect(await groupsOf(u1)).toEqual([g2]);
    expect(await groupsWith(u1)).toEqual([g2]);
  });

  it("should answer members.value eq filters exactly while changes are pending", async () => {
    const u = await user("mo.filter");
    const g = await group("MO Filter");
    expect((await members(g, "add", [u])).status).toBe(204);
    expect(await pending()).toBeGreaterThan(0);
    expect(await groupsWith(u)).toEqual([g]);
  });

  it("should take a deleted user out of every group it joined, even with its joins pending", async () => {
    const u = await user("mo.deleted");
    const [g1, g2] = [await group("MO Del One"), await group("MO Del Two")];
    expect((await members(g1, "add", [u])).status).toBe(204);
    expect((await members(g2, "add", [u])).status).toBe(204);
    expect(await pending()).toBeGreaterThan(0);
    expect(await deleteUser(u)).toBe(204);
    for (const g of [g1, g2]) expect(await memberValues(g)).toEqual([]);
    expect(await s.redis.exists(`${s.prefix}:{acme}:mg:${u}`)).toBe(0);
  });

  it("should keep the queue bounded when nothing drains it in the background (each write applies a batch)", async () => {
    const u = await user("mo.pressure");
    const g = await group("MO Pressure");
    for (let i = 0; i < 150; i++) {
      expect((await members(g, "add", [u])).status).toBe(204);
      expect((await members(g, "remove", [u])).status).toBe(204);
    }
    expect(await pending()).toBeLessThanOrEqual(257);
    expect(await groupsOf(u)).toEqual([]);
    expect((await members(g, "add", [u])).status).toBe(204);
    expect(await groupsOf(u)).toEqual([g]);
  });

  it("should take a deleted group out of its members' groups", async () => {
    const u = await user("mo.groupdel");
    const g = await group("MO Group Del");
    expect((await members(g, "add", [u])).status).toBe(204);
    expect(await deleteGroup(g)).toBe(204);
    expect(await groupsOf(u)).toEqual([]);
  });
});

describe("the background drain", () => {
  it("should empty the queue after member PATCHes without any reader", async () => {
    const u = await user("mo.background");
    const g = await group("MO Background");
    expect((await members(g, "add", [u])).status).toBe(204);
    await s.groups.memberOf.idle();
    expect(await pending()).toBe(0);
    expect(await s.redis.sismember(`${s.prefix}:{acme}:mg:${u}`, g)).toBe(1);
  });
});
