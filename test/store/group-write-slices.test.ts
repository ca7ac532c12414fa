/**
 * Group writes too big for one Redis call (src/store/group-write-slices.ts): staged in slices of
 * MEMBER_SLICE members and published by one short call. Against real Redis: a PUT-like replace, a clear
 * and a large add give exactly the members a one-call write gives; a write refused half-way (an unknown
 * member in a late slice, too many members, a stale If-Match) changes nothing a reader can see; a write
 * outrun by another write to the group stages again and keeps both; readers racing with writes see every
 * member that stays throughout exactly once and nothing that never was a member.
 */
import { DirectoryKeys, GroupStore, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { StoreInvalidMemberError, StorePreconditionError, StoreTooManyMembersError } from "../../src/store/errors";
import { MEMBER_SLICE } from "../../src/store/member-slices";
import { fromLastReset, opSlices, writeGroupInSlices } from "../../src/store/group-write-slices";
import { defineStoreCommands } from "../../src/store/scripts";
import type { MemberOp } from "../../src/store/types";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection;
let prefix: string;
let k: DirectoryKeys;
let groups: GroupStore;
const D = "d1";
const G = "g1";

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis);
});
beforeEach(async () => {
  prefix = testPrefix();
  k = new DirectoryKeys(prefix, D);
  groups = new GroupStore(redis, prefix, 200000);
  // the directory's users: the id sets writeGroup checks members against
  const all = users("u", 4000);
  for (let i = 0; i < all.length; i += 1000) {
    await redis.sadd(k.userIds, ...all.slice(i, i + 1000));
    await redis.zadd(k.users, ...all.slice(i, i + 1000).flatMap((u, j) => [String(i + j + 1), u]));
  }
});
afterEach(async () => {
  await groups.memberOf.idle();
  await cleanPrefix(redis, prefix);
});
afterAll(() => redis.disconnect());

const users = (tag: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${tag}${from + i}`);
const op = (name: MemberOp["op"], values: string[], display?: (v: string) => string): MemberOp =>
  ({ op: name, members: values.map((value) => ({ value, ...(display ? { display: display(value) } : {}) })) });
const members = async () => redis.hgetall(k.groupMembers(G));
const version = async () => Number(await redis.hget(k.group(G), "v"));
const stagingKeys = async () => (await redis.keys(`${k.prefix}gmw:*`)).length;
const body = { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "All employees" };

async function seed(values: string[]): Promise<void> {
  await groups.write(D, G, { mode: "create", body });
  for (let i = 0; i < values.length; i += MEMBER_SLICE) await groups.write(D, G, { mode: "update", memberOps: [op("add", values.slice(i, i + MEMBER_SLICE))] });
}

test("operations are cut at slice boundaries, in order, from the last clear or replace on", () => {
  expect(fromLastReset([["add", ["a"]], ["replace", ["b", "c"], ["B", "C"]], ["remove", ["b"]]])).toEqual({ fromEmpty: true, ops: [["add", ["b", "c"], ["B", "C"]], ["remove", ["b"]]] });
  expect(fromLastReset([["add", ["a"]], ["clear", []], ["add", ["d"]]])).toEqual({ fromEmpty: true, ops: [["add", ["d"]]] });
  expect(fromLastReset([["add", ["a"]]])).toEqual({ fromEmpty: false, ops: [["add", ["a"]]] });
  const slices = opSlices([["add", ["a", "b", "c"], ["A", "B", "C"]], ["remove", ["d", "e"]]], 2);
  expect(slices).toEqual([[["add", ["a", "b"], ["A", "B"]]], [["add", ["c"], ["C"]], ["remove", ["d"]]], [["remove", ["e"]]]]);
});

test("a replace of 2,500 members by 2,500 others, half of them the same, gives exactly the new members", async () => {
  await seed(users("u", 2500));
  const v = await version();
  const next = users("u", 2500, 1250);
  await groups.write(D, G, { mode: "update", memberOps: [op("replace", next, (x) => `Name ${x}`)] });
  const m = await members();
  expect(Object.keys(m).sort()).toEqual([...next].sort());
  expect(m.u3000).toBe("UName u3000");
  expect(await version()).toBe(v + 1);
  // the reconcile looks at every member: one mark, not one per member
  expect(await redis.hkeys(`${k.prefix}s:gch:${G}`)).toContain("*");
  expect(await stagingKeys()).toBe(0);
});

test("a clear of 2,500 members leaves none; a PATCH of 2,500 adds and removes in order matches the one-call result", async () => {
  await seed(users("u", 2500));
  await groups.write(D, G, { mode: "update", memberOps: [op("clear", [])] });
  expect(await redis.exists(k.groupMembers(G))).toBe(0);
  await groups.write(D, G, { mode: "update", memberOps: [op("add", users("u", 600))] });
  await groups.write(D, G, { mode: "update", memberOps: [op("add", users("u", 600, 600))] });
  await groups.write(D, G, { mode: "update", memberOps: [op("add", users("u", 1300, 1000)), op("remove", users("u", 100, 1100)), op("add", users("u", 10, 1150), (x) => `D${x}`)] });
  const expected = new Set([...users("u", 1200), ...users("u", 1300, 1000)]);
  for (const x of users("u", 100, 1100)) expected.delete(x);
  for (const x of users("u", 10, 1150)) expected.add(x);
  const m = await members();
  expect(Object.keys(m).sort()).toEqual([...expected].sort());
  expect(m.u1155).toBe("UDu1155");
});

test("a sliced write refused half-way changes nothing: an unknown member in a late slice, too many members, a stale If-Match", async () => {
  await seed(users("u", 1500));
  const before = await members();
  const v = await version();
  const outbox = await redis.xlen(k.outbox);
  await expect(groups.write(D, G, { mode: "update", memberOps: [op("replace", [...users("u", 2500, 1000), "nobody"])] })).rejects.toBeInstanceOf(StoreInvalidMemberError);
  await expect(new GroupStore(redis, prefix, 2000).write(D, G, { mode: "update", memberOps: [op("add", users("u", 1500, 2000))] })).rejects.toBeInstanceOf(StoreTooManyMembersError);
  await expect(groups.write(D, G, { mode: "update", expectedVersion: v - 1, memberOps: [op("clear", [])] })).rejects.toBeInstanceOf(StorePreconditionError);
  expect(await members()).toEqual(before);
  expect(await version()).toBe(v);
  expect(await redis.xlen(k.outbox)).toBe(outbox);
  expect(await stagingKeys()).toBe(0);
  // skipUnknownMembers: the unknown value is left out, the rest written
  const r = await groups.write(D, G, { mode: "update", skipUnknownMembers: true, memberOps: [op("add", [...users("u", 1500, 1500), "nobody"])] });
  expect(r.skippedMembers).toEqual(["nobody"]);
  expect(await redis.hlen(k.groupMembers(G))).toBe(3000);
});

test("a sliced write outrun by another write to the group before its publish stages again and keeps both", async () => {
  await seed(users("u", 1500));
  const v = await version();
  let publishes = 0;
  const { reply } = await writeGroupInSlices(defineStoreCommands(redis), k, {
    id: G, mode: "update", expectedVersion: "", oldD: "", newD: "", displayNameLower: "", externalId: "", displayName: "",
    maxMembers: 200000, uniqueExternalId: false, largeMembers: 1000, largePerDirectory: 8, skipUnknownMembers: false,
    settle: async (call) => {
      // the first publish finds the group changed since its staging began
      if (publishes++ === 0) await groups.write(D, G, { mode: "update", memberOps: [op("remove", ["u0"])] });
      return call(`r${publishes}`, "120");
    },
  }, [["add", users("u", 1500, 1500)]]);
  expect(reply[0]).toBe("OK");
  expect(publishes).toBe(2);
  expect(await version()).toBe(v + 2);
  const m = await members();
  expect(m.u0).toBeUndefined();
  expect(Object.keys(m)).toHaveLength(2999);
  expect(await stagingKeys()).toBe(0);
});

test("writes racing with a sliced write and with readers: each reader sees the members that stay exactly once", async () => {
  const stay = users("u", 1500);
  await seed(stay);
  const never = new Set(users("u", 500, 3500));
  const stop = { done: false };
  const reads: string[][] = [];
  const reader = async () => {
    while (!stop.done) {
      const seen: string[] = [];
      for await (const slice of groups.memberSlices(D, G, 200)) seen.push(...slice.map((m) => m.value));
      reads.push(seen);
    }
  };
  const readers = [reader(), reader()];
  // a large add and a replace keeping `stay`, while small one-call writes add and remove others
  await Promise.all([
    groups.write(D, G, { mode: "update", memberOps: [op("add", users("u", 1500, 1500))] }),
    (async () => { for (let i = 0; i < 20; i++) await groups.write(D, G, { mode: "update", memberOps: [op(i % 2 ? "remove" : "add", [`u${3000 + (i >> 1)}`])] }); })(),
  ]);
  await groups.write(D, G, { mode: "update", memberOps: [op("replace", [...stay, ...users("u", 1200, 2000)])] });
  await groups.write(D, G, { mode: "update", memberOps: [op("remove", users("u", 1200, 2000))] });
  stop.done = true;
  await Promise.all(readers);
  expect(reads.length).toBeGreaterThan(0);
  for (const seen of reads) {
    expect(new Set(seen).size).toBe(seen.length);
    const s = new Set(seen);
    for (const x of stay) expect(s.has(x)).toBe(true);
    for (const x of seen) expect(never.has(x)).toBe(false);
  }
  expect(Object.keys(await members()).sort()).toEqual([...stay].sort());
});
