/**
 * A group's members read in slices (src/store/member-slices.ts) while member writes land between the
 * slices: every member present from the start of the read to its end is seen exactly once, every member
 * added or removed meanwhile at most once, even when the writes make the member hash grow or shrink
 * (HSCAN may then return an element twice) or replace the membership outright.
 */
import { GroupStore, UserStore, createStoreConnection, waitReady, type MemberOp, type RedisConnection } from "../../src/store";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection;
let prefix: string;
let users: UserStore;
let groups: GroupStore;
const DIR = "d1";

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis);
});
beforeEach(() => {
  prefix = testPrefix();
  users = new UserStore(redis, prefix);
  groups = new GroupStore(redis, prefix);
});
afterEach(async () => { await groups.memberOf.idle(); await cleanPrefix(redis, prefix); });
afterAll(() => redis.disconnect());

const ids = (tag: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${tag}${from + i}`);

async function makeUsers(values: string[]): Promise<void> {
  for (let i = 0; i < values.length; i += 200) {
    await Promise.all(values.slice(i, i + 200).map((id) => users.write(DIR, id, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: id }, "create")));
  }
}

async function apply(op: MemberOp["op"], values: string[]): Promise<void> {
  for (let i = 0; i < Math.max(values.length, 1); i += 1000) {
    const members = values.slice(i, i + 1000).map((value) => ({ value }));
    // a replace of more than one write's members: the first write replaces, the next ones add
    await groups.write(DIR, "g", { mode: "update", memberOps: [{ op: i > 0 && op === "replace" ? "add" : op, members }] });
  }
}

/**
 * Reads the group in slices of `size`, running `steps[i]` after slice i; checks the read against the
 * membership before and after every step.
 */
async function readWhile(size: number, steps: Array<() => Promise<void>>): Promise<void> {
  const memberSet = async () => new Set(await redis.hkeys(groups.keys(DIR).groupMembers("g")));
  let throughout = await memberSet();
  const ever = new Set(throughout);
  const seen: string[] = [];
  let slices = 0;
  for await (const slice of groups.memberSlices(DIR, "g", size)) {
    seen.push(...slice.map((m) => m.value));
    const step = steps[slices++];
    if (step) {
      await step();
      const now = await memberSet();
      throughout = new Set([...throughout].filter((v) => now.has(v)));
      for (const v of now) ever.add(v);
    }
  }
  expect(slices).toBeGreaterThanOrEqual(steps.length); // every step ran, each after a slice
  const counts = new Map<string, number>();
  for (const v of seen) counts.set(v, (counts.get(v) ?? 0) + 1);
  expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
  expect([...throughout].filter((v) => !counts.has(v))).toEqual([]);
  expect(seen.filter((v) => !ever.has(v))).toEqual([]);
}

describe("a group read in slices while its members change", () => {
  beforeEach(async () => {
    await makeUsers(ids("u", 0, 6000));
    await groups.write(DIR, "g", { mode: "create", body: { displayName: "g" } });
    await apply("add", ids("u", 0, 3000));
  }, 60000);

  it("should see untouched members exactly once through adds that grow the hash and removes", async () => {
    await readWhile(100, [
      () => apply("remove", [...ids("u", 0, 50), ...ids("u", 2900, 3000)]),
      () => apply("add", ids("u", 3000, 6000)), // the hash doubles: HSCAN may return elements twice
      async () => undefined,
      () => apply("remove", [...ids("u", 100, 2900), ...ids("u", 3000, 5950)]), // and shrinks: elements may come again
      () => apply("add", ids("u", 0, 50)),
    ]);
  }, 60000);

  it("should see the members a replace keeps exactly once", async () => {
    await readWhile(200, [
      () => apply("replace", [...ids("u", 1000, 3000), ...ids("u", 4000, 5000)]),
      async () => undefined,
      () => apply("replace", ids("u", 1500, 4500)),
    ]);
  }, 60000);

  it("should see a removed member at most once when it is re-added", async () => {
    await readWhile(100, [
      () => apply("remove", ids("u", 0, 1500)),
      () => apply("add", ids("u", 0, 1500)),
      () => apply("remove", ids("u", 1000, 2000)),
      () => apply("add", ids("u", 1000, 2000)),
    ]);
  }, 60000);
});
