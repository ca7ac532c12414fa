/**
 * A workforce group's membership delta read and settled in slices (src/store/member-delta.ts): at slice
 * sizes that split every phase, the delta is the one a single slice computes, each member once; a member
 * changed between two slices keeps its mark; a replacement of the applied set is staged and swapped in
 * by one call, and a stage a crashed run left behind is never published.
 */
import { DirectoryKeys, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { SyncStateKeys } from "../../src/sync/state/sync-state-keys";
import { defineStoreCommands, type StoreCommands } from "../../src/store/scripts";
import { readMemberDelta, settleMemberDelta, type MemberDeltaKeys } from "../../src/store/member-delta";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection & StoreCommands;
let prefix: string;
let P: string;
let sk: SyncStateKeys;
const G = "g1";

beforeAll(async () => {
  redis = defineStoreCommands(createStoreConnection(TEST_REDIS));
  await waitReady(redis);
});
beforeEach(() => {
  prefix = testPrefix();
  P = new DirectoryKeys(prefix, "d1").prefix;
  sk = new SyncStateKeys(prefix, "d1");
});
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

// more than a small hash's listpack holds (128 entries), so HSCAN and SSCAN really go in several slices
const A = 300, B = 50, C = 200;
const ids = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
const keys = (): MemberDeltaKeys => ({
  changed: sk.changedMembers(G), legacyChanged: sk.legacyChangedMembers(G), members: `${P}gm:${G}`,
  applied: sk.appliedMembers(G), staged: sk.stagedMembers(G), syncState: (m) => sk.record("user", m),
});
const sorted = <T>(xs: T[], by: (x: T) => string = String) => [...xs].sort((a, b) => by(a).localeCompare(by(b)));

/**
 * SCIM members a* (users with platform ids: should be on the platform), b* (users without one, pending),
 * applied the last 20 a's and every c (gone from SCIM); every one of them marked changed, half of the c's
 * by an earlier release.
 */
async function scenario(): Promise<void> {
  const scim = [...ids("a", A), ...ids("b", B)];
  await redis.hset(`${P}gm:${G}`, ...scim.flatMap((m) => [m, "U"]));
  for (const m of ids("a", A)) await redis.hset(`${P}s:u:${m}`, "pid", `p-${m}`, "st", "synced");
  for (const m of ids("b", B)) await redis.hset(`${P}s:u:${m}`, "st", "pending");
  for (const m of ids("c", C)) await redis.hset(`${P}s:u:${m}`, "pid", `p-${m}`, "st", "synced");
  await redis.sadd(`${P}s:gm:${G}`, ...ids("a", A).slice(A - 20), ...ids("c", C));
  await redis.hset(sk.changedMembers(G), ...[...scim, ...ids("c", C / 2)].flatMap((m) => [m, "5"]));
  await redis.zadd(sk.legacyChangedMembers(G), ...ids("c", C).slice(C / 2).flatMap((m) => ["3", m] as string[]));
}

describe("a group's member delta in slices", () => {
  it.each([false, true])("should equal the one-slice delta at every slice size (full: %s)", async (full) => {
    await scenario();
    const dump = async () => [await redis.hgetall(sk.changedMembers(G)), await redis.zrange(sk.legacyChangedMembers(G), "0", "-1")];
    const before = await dump();
    const one = await readMemberDelta(redis, keys(), full, 100000);
    const afterOne = await dump(); // the legacy set is merged by the first read
    for (const size of [1, 7, 64, 500]) {
      await redis.del(sk.changedMembers(G));
      await redis.hset(sk.changedMembers(G), before[0] as Record<string, string>);
      await redis.zadd(sk.legacyChangedMembers(G), ...ids("c", C).slice(C / 2).flatMap((m) => ["3", m] as string[]));
      const d = await readMemberDelta(redis, keys(), full, size);
      expect(await dump()).toEqual(afterOne);
      expect(sorted(d.seen)).toEqual(sorted(one.seen));
      expect(new Set(d.seen).size).toBe(d.seen.length);
      expect(sorted(d.add, (x) => x.id)).toEqual(sorted(one.add, (x) => x.id));
      expect(sorted(d.remove, (x) => x.id)).toEqual(sorted(one.remove, (x) => x.id));
      expect(sorted(d.should, (x) => x.id)).toEqual(sorted(one.should, (x) => x.id));
      expect(sorted(d.unready)).toEqual(sorted(one.unready));
    }
    expect(one.add.map((x) => x.id).sort()).toEqual(ids("a", A - 20).sort());
    expect(one.remove.map((x) => x.id).sort()).toEqual(ids("c", C).sort());
    expect(one.unready.sort()).toEqual(ids("b", B).sort());
    expect(one.should.length).toBe(full ? A : 0);
  });

  it("should look at every member when a wholesale write left one \"*\" mark, and settle that mark", async () => {
    await scenario();
    // marks of the a's and b's only, plus "*": the c's (applied, gone from SCIM) are found through "*"
    await redis.del(sk.changedMembers(G), sk.legacyChangedMembers(G));
    await redis.hset(sk.changedMembers(G), "*", "7", "a0", "5");
    for (const size of [7, 1000]) {
      const d = await readMemberDelta(redis, keys(), false, size);
      expect(d.add.map((x) => x.id).sort()).toEqual(ids("a", A - 20).sort());
      expect(d.remove.map((x) => x.id).sort()).toEqual(ids("c", C).sort());
      expect(sorted(d.seen)).toEqual(["*", "a0"]);
    }
    const d = await readMemberDelta(redis, keys(), false, 7);
    const waiting = await settleMemberDelta(redis, keys(),
      { seen: d.seen, scores: d.scores, add: d.add.map((x) => x.id), remove: d.remove.map((x) => x.id) }, false, 7);
    expect(waiting).toBe(0);
    expect((await redis.smembers(`${P}s:gm:${G}`)).sort()).toEqual(ids("a", A).sort());
  });

  it("should settle in slices and keep the mark of a member changed after it was looked at", async () => {
    await scenario();
    const d = await readMemberDelta(redis, keys(), false, 7);
    await redis.hset(sk.changedMembers(G), "a3", "9"); // changed again after the look
    const waiting = await settleMemberDelta(redis, keys(),
      { seen: d.seen, scores: d.scores, add: d.add.map((x) => x.id), remove: d.remove.map((x) => x.id) }, false, 7);
    expect(waiting).toBe(1);
    expect(await redis.hgetall(sk.changedMembers(G))).toEqual({ a3: "9" });
    expect((await redis.smembers(`${P}s:gm:${G}`)).sort()).toEqual(ids("a", A).sort());
  });

  it("should stage a replacement of the applied set and publish it in one call, dropping a crashed run's stage", async () => {
    await scenario();
    await redis.sadd(`${P}s:gms:${G}`, "stale1", "stale2"); // a run that crashed while staging
    const d = await readMemberDelta(redis, keys(), true, 7);
    const waiting = await settleMemberDelta(redis, keys(),
      { seen: d.seen, scores: d.scores, add: d.should.map((x) => x.id), remove: [] }, true, 7);
    expect(waiting).toBe(0);
    expect((await redis.smembers(`${P}s:gm:${G}`)).sort()).toEqual(ids("a", A).sort());
    expect(await redis.exists(`${P}s:gms:${G}`)).toBe(0);
    // a replacement with nothing to add empties the applied set, and publishes no stale stage either
    await redis.sadd(`${P}s:gms:${G}`, "stale3");
    await settleMemberDelta(redis, keys(), { seen: [], scores: [], add: [], remove: [] }, true, 7);
    expect(await redis.exists(`${P}s:gm:${G}`, `${P}s:gms:${G}`)).toBe(0);
    // a replacement that fits one slice is one call, and drops a stale stage too
    await redis.sadd(`${P}s:gms:${G}`, "stale4");
    await settleMemberDelta(redis, keys(), { seen: [], scores: [], add: ["a1", "a2"], remove: [] }, true, 7);
    expect((await redis.smembers(`${P}s:gm:${G}`)).sort()).toEqual(["a1", "a2"]);
    expect(await redis.exists(`${P}s:gms:${G}`)).toBe(0);
  });
});
