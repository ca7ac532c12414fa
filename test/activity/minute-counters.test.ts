/**
 * The status page's per-minute counters (src/activity/minute-counters.ts) against real Redis: written at once,
 * or, with `flushMs` (the worker), summed in the process and written together by the timer, `flush()` or `close()`.
 */
import { MinuteCounters, minuteOf } from "../../src/activity/minute-counters";
import { storeTestRedis } from "../helpers/redis";
import { waitFor } from "../helpers/sync-env";

const t = storeTestRedis();

/** Half a minute into the minute before last (within the 24 h the trim keeps). */
const NOW = (minuteOf(Date.now()) - 2) * 60_000 + 30_000;

describe("MinuteCounters", () => {
  it("should write each value at once without flushMs: counters add, gauges keep the minute's highest", async () => {
    const c = new MinuteCounters(t.redis, t.prefix);
    await c.add("d1", "calls", 1, NOW);
    await c.add("d1", "calls", 2, NOW);
    await c.max("d1", "lag", 40, NOW);
    await c.max("d1", "lag", 15, NOW);
    expect(await t.redis.hgetall(c.key("d1", "calls"))).toEqual({ [minuteOf(NOW)]: "3" });
    expect(await t.redis.hgetall(c.key("d1", "lag"))).toEqual({ [minuteOf(NOW)]: "40" });
  });

  it("should sum in the process with flushMs and write nothing until a flush, then every directory's values per minute", async () => {
    const c = new MinuteCounters(t.redis, t.prefix, 60_000);
    for (let i = 0; i < 5; i++) await c.add("d1", "calls", 1, NOW);
    await c.add("d1", "calls", 1, NOW + 60_000); // the next minute
    await c.add("d2", "callFailures", 2, NOW);
    await c.max("d1", "lag", 40, NOW);
    await c.max("d1", "lag", 15, NOW);
    // one EXISTS per directory: on a cluster, the keys of two directories lie in different slots
    expect(await t.redis.exists(c.key("d1", "calls"), c.key("d1", "lag"))).toBe(0);
    expect(await t.redis.exists(c.key("d2", "callFailures"))).toBe(0);
    await c.flush();
    expect(await t.redis.hgetall(c.key("d1", "calls"))).toEqual({ [minuteOf(NOW)]: "5", [minuteOf(NOW) + 1]: "1" });
    expect(await t.redis.hgetall(c.key("d2", "callFailures"))).toEqual({ [minuteOf(NOW)]: "2" });
    expect(await t.redis.hgetall(c.key("d1", "lag"))).toEqual({ [minuteOf(NOW)]: "40" });
    // a flushed gauge still keeps the minute's highest over later flushes (and other processes' writes)
    await c.max("d1", "lag", 30, NOW);
    await c.add("d1", "calls", 4, NOW);
    await c.close();
    expect(await t.redis.hget(c.key("d1", "lag"), String(minuteOf(NOW)))).toBe("40");
    expect(await t.redis.hget(c.key("d1", "calls"), String(minuteOf(NOW)))).toBe("9");
  });

  it("should write nothing of a directory it was told to forget (a deleted directory's keys stay purged)", async () => {
    const c = new MinuteCounters(t.redis, t.prefix, 60_000);
    await c.add("gone", "calls", 2, NOW);
    await c.max("gone", "lag", 9, NOW);
    await c.add("kept", "calls", 1, NOW);
    c.forget("gone");
    await c.close();
    expect(await t.redis.exists(c.key("gone", "calls"), c.key("gone", "lag"))).toBe(0);
    expect(await t.redis.hget(c.key("kept", "calls"), String(minuteOf(NOW)))).toBe("1");
  });

  it("should write the buffered values by itself within flushMs", async () => {
    const c = new MinuteCounters(t.redis, t.prefix, 20);
    // one moment for both the values and the check: a minute that turns between them (the clock read again
    // in the check) would look for the values under the next minute and never find them
    const now = Date.now();
    await c.add("d1", "calls", 3, now);
    await c.max("d1", "queue", 7, now);
    await waitFor(async () => (await t.redis.hget(c.key("d1", "calls"), String(minuteOf(now)))) === "3", 5000, "calls written by the timer");
    expect(Object.values(await t.redis.hgetall(c.key("d1", "queue")))).toEqual(["7"]);
    await c.close();
  });
});
