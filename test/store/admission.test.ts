/**
 * The admission of a directory's work (src/sync/admission/admission-store.ts) against real Redis: the order in
 * which BullMQ's events arrive must not leave a resource unable to run again.
 */
import { AdmissionStore, SHARE_GRACE_MS } from "../../src/sync/admission/admission-store";
import { createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";
import { waitFor } from "../helpers/sync-env";

let redis: RedisConnection;
let prefix: string;
let admission: AdmissionStore;

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis);
});
beforeEach(() => {
  prefix = testPrefix();
  admission = new AdmissionStore(redis, prefix);
});
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

describe("the backlog", () => {
  it("should admit members in the order they were added, not in byte order", async () => {
    await admission.add("d1", ["user:b", "group:z", "user:a", "group:a"], 1_764_000_000_000);
    await admission.add("d1", ["user:c", "user:b"], 1_764_000_000_001); // user:b keeps its place
    expect(await admission.admit("d1", 5)).toEqual(["user:b", "group:z", "user:a", "group:a", "user:c"]);
  });

  it("should admit batches added within the same millisecond in the order they were added", async () => {
    await admission.add("d1", ["user:x"], 1_764_000_000_000);
    await admission.add("d1", ["group:y"], 1_764_000_000_000);
    await admission.add("d1", ["user:w", "group:a"], 1_764_000_000_000);
    expect(await admission.admit("d1", 4)).toEqual(["user:x", "group:y", "user:w", "group:a"]);
  });
});

describe("a retry's slot", () => {
  it("should be lent while the job waits out its delay and taken back when it runs", async () => {
    await admission.add("d1", ["user:a", "user:b"]);
    expect(await admission.admit("d1", 1)).toEqual(["user:a"]);
    expect(await admission.retrying("d1", "user:a")).toBe(true);
    expect(await admission.admit("d1", 1)).toEqual(["user:b"]);
    await admission.gate("d1", "user:a");
    expect(await admission.depth("d1")).toEqual({ backlog: 0, admitted: 2 });
  });

  it("should not be lent when the retry already ran and finished before the lend arrived", async () => {
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1)).toEqual(["user:a"]);
    // the retry runs and fails for good before the first attempt's "failed" event is handled
    await admission.gate("d1", "user:a");
    await admission.release("d1", "user:a");
    expect(await admission.retrying("d1", "user:a")).toBe(false);
    expect(await admission.depth("d1")).toEqual({ backlog: 0, admitted: 0 });
    // so the resource can run again when it is next asked for (a change, a revival)
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1)).toEqual(["user:a"]);
  });

  it("should not be lent by the admission that lends it and admits the next (one command) when the retry already finished", async () => {
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1)).toEqual(["user:a"]);
    await admission.gate("d1", "user:a");
    expect(await admission.admit("d1", 1, Date.now(), { op: "release", member: "user:a" })).toEqual([]);
    expect(await admission.admit("d1", 1, Date.now(), { op: "retrying", member: "user:a" })).toEqual([]);
    expect(await admission.depth("d1")).toEqual({ backlog: 0, admitted: 0 });
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1)).toEqual(["user:a"]);
  });

  it("should free a finished member's slot and fill it with the next in one command", async () => {
    await admission.add("d1", ["user:a", "user:b"]);
    expect(await admission.admit("d1", 1)).toEqual(["user:a"]);
    expect(await admission.admit("d1", 1)).toEqual([]);
    expect(await admission.admit("d1", 1, Date.now(), { op: "release", member: "user:a" })).toEqual(["user:b"]);
    expect(await admission.depth("d1")).toEqual({ backlog: 0, admitted: 1 });
  });
});

describe("a directory's share (its later turns in the shard)", () => {
  const shareOf = async (dir: string, member: string) => {
    await admission.add(dir, [member]);
    const [a] = await admission.admitWithTurns(dir, 1);
    expect(a.member).toBe(member);
    return a.share;
  };

  it("should keep counting when the directory's next change comes within the grace after its last job finished", async () => {
    expect(await shareOf("d1", "user:a")).toBe(0);
    await admission.release("d1", "user:a"); // nothing in flight now: an IdP between two changes
    expect(await shareOf("d1", "user:b")).toBe(1);
    await admission.release("d1", "user:b");
    expect(await shareOf("d1", "user:c")).toBe(2);
    const ttl = await redis.pttl(admission.keys("d1").share);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(SHARE_GRACE_MS);
  });

  it("should start again at 0 for a directory idle for longer than the grace", async () => {
    expect(await shareOf("d1", "user:a")).toBe(0);
    expect(await shareOf("d2", "user:x")).toBe(0); // a shard-mate's share is its own
    await admission.release("d1", "user:a");
    await redis.pexpire(admission.keys("d1").share, 1); // the grace ran out
    await waitFor(async () => (await redis.exists(admission.keys("d1").share)) === 0, 5000, "share expired");
    expect(await shareOf("d1", "user:b")).toBe(0);
    await admission.release("d2", "user:x");
    expect(await shareOf("d2", "user:y")).toBe(1);
  });
});

describe("recovery's give-back", () => {
  it("should put a member that still holds the slot it was seen with back into the backlog", async () => {
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1, 1000)).toEqual(["user:a"]);
    const [seen] = (await admission.admittedSince(["d1"], 5000)).get("d1")!;
    expect(seen).toEqual({ member: "user:a", stamp: 1000 });
    expect(await admission.giveBack("d1", seen)).toBe(true);
    expect(await admission.depth("d1")).toEqual({ backlog: 1, admitted: 0 });
  });

  it("should leave a member alone that was released, or released and admitted again, after it was seen", async () => {
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1, 1000)).toEqual(["user:a"]);
    const [seen] = (await admission.admittedSince(["d1"], 5000)).get("d1")!;
    await admission.release("d1", "user:a");
    expect(await admission.giveBack("d1", seen)).toBe(false);
    expect(await admission.depth("d1")).toEqual({ backlog: 0, admitted: 0 });
    // a change came, and its reconcile was admitted again: that admission is not the one seen
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1, 2000)).toEqual(["user:a"]);
    expect(await admission.giveBack("d1", seen)).toBe(false);
    expect(await admission.depth("d1")).toEqual({ backlog: 0, admitted: 1 });
  });

  it("should give back a member seen waiting out a retry delay", async () => {
    await admission.add("d1", ["user:a"]);
    expect(await admission.admit("d1", 1, 1000)).toEqual(["user:a"]);
    expect(await admission.retrying("d1", "user:a", 1500)).toBe(true);
    const [seen] = (await admission.admittedSince(["d1"], 5000)).get("d1")!;
    expect(seen).toEqual({ member: "user:a", stamp: 1500 });
    expect(await admission.giveBack("d1", seen)).toBe(true);
    expect(await admission.depth("d1")).toEqual({ backlog: 1, admitted: 0 });
  });
});

describe("the probe of the periodic chores", () => {
  it("should tell backlog, admitted and the admissions at or before a moment of each directory in one command per directory", async () => {
    await admission.add("d1", ["user:a", "user:b", "user:c", "user:d"]);
    expect(await admission.admit("d1", 2, 1000)).toEqual(["user:a", "user:b"]);
    expect(await admission.retrying("d1", "user:b", 3000)).toBe(true);
    expect(await admission.admit("d1", 2, 6000)).toEqual(["user:c"]);
    await admission.add("d2", ["group:x"]);

    // every command this store sends, as ioredis sends it (a script is one EVALSHA, plus an EVAL the first time)
    const conn = createStoreConnection(TEST_REDIS);
    await waitReady(conn);
    const sent: string[] = [];
    const send = conn.sendCommand.bind(conn);
    conn.sendCommand = ((c: { name: string }, ...rest: unknown[]) => { sent.push(c.name); return (send as (...a: unknown[]) => unknown)(c, ...rest); }) as typeof conn.sendCommand;
    try {
      const probing = new AdmissionStore(conn, prefix);
      await probing.probe(["d0"]); // the script is loaded (EVAL) here, once
      sent.length = 0;
      const probes = await probing.probe(["d1", "d2", "d3"], 3000);
      expect(probes.get("d1")).toEqual({ backlog: 1, admitted: 3, old: [{ member: "user:a", stamp: 1000 }, { member: "user:b", stamp: 3000 }] });
      expect(probes.get("d2")).toEqual({ backlog: 1, admitted: 0, old: [] });
      expect(probes.get("d3")).toEqual({ backlog: 0, admitted: 0, old: [] });
      expect(sent).toEqual(["evalsha", "evalsha", "evalsha"]);
      expect((await probing.probe(["d1"])).get("d1")).toEqual({ backlog: 1, admitted: 3, old: [] });
      expect(await probing.backlogged(["d1", "d2", "d3"])).toEqual(["d1", "d2"]);
      expect(await probing.depth("d1")).toEqual({ backlog: 1, admitted: 3 });
    } finally {
      conn.disconnect();
    }
  });
});

describe("recovery's re-stamp", () => {
  it("should re-stamp the members still admitted, in flight or retrying, and add none that left", async () => {
    await admission.add("d1", ["user:a", "user:b", "user:c"]);
    expect(await admission.admit("d1", 3, 1000)).toEqual(["user:a", "user:b", "user:c"]);
    expect(await admission.retrying("d1", "user:b", 1500)).toBe(true);
    await admission.release("d1", "user:c");
    await admission.touch("d1", ["user:a", "user:b", "user:c"], 9000);
    expect((await admission.probe(["d1"], 9000)).get("d1")).toEqual({
      backlog: 0, admitted: 2, old: [{ member: "user:a", stamp: 9000 }, { member: "user:b", stamp: 9000 }],
    });
    expect((await admission.probe(["d1"], 8999)).get("d1")!.old).toEqual([]);
  });
});
