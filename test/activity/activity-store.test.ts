/**
 * The activity trails (src/activity/activity-store.ts) against real Redis: the appends of one turn of the
 * event loop are written in one script call per directory, each trail's events in order, each trail capped
 * at maxEvents and given its retention; a failed write rejects the appends it held, and only those.
 */
import { ActivityStore, type ActivityEvent } from "../../src/activity/activity-store";
import { storeTestRedis } from "../helpers/redis";

const t = storeTestRedis();
afterEach(() => { jest.restoreAllMocks(); });

const idp = (n: number): ActivityEvent => ({ type: "idp", at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), method: "PATCH", status: 204, attributes: [`n${n}`] });
const names = (events: ActivityEvent[]) => events.map((e) => e.attributes?.[0]);
/** The script calls `a` makes while `fn` runs. */
async function scriptCalls(a: ActivityStore, fn: () => Promise<unknown>): Promise<number> {
  const scripts = (a as unknown as { scripts: { appendActivity: (...args: unknown[]) => Promise<number> } }).scripts;
  const call = jest.spyOn(scripts, "appendActivity");
  await fn();
  return call.mock.calls.length;
}

describe("ActivityStore", () => {
  it("should write one turn's appends of a directory in one script call, each trail in order", async () => {
    const a = new ActivityStore(t.redis, t.prefix, 50, 1);
    const calls = await scriptCalls(a, () => Promise.all([
      a.append("d1", "user", "u1", [idp(1), idp(2)]),
      a.append("d1", "group", "g1", [idp(3)]),
      a.append("d1", "user", "u1", [idp(4)]),
      a.append("d2", "user", "u1", [idp(5)]),
    ]));
    expect(calls).toBe(2); // d1 and d2
    expect(names(await a.read("d1", "user", "u1"))).toEqual(["n4", "n2", "n1"]); // newest first
    expect(names(await a.read("d1", "group", "g1"))).toEqual(["n3"]);
    expect(names(await a.read("d2", "user", "u1"))).toEqual(["n5"]);
    const ttl = await t.redis.ttl(a.key("d1", "group", "g1"));
    expect(ttl).toBeGreaterThan(86400 - 60);
    expect(ttl).toBeLessThanOrEqual(86400);
  });

  it("should keep the newest maxEvents of a trail, across turns and within one", async () => {
    const a = new ActivityStore(t.redis, t.prefix, 3, 1);
    await a.append("d1", "user", "u1", [idp(1), idp(2)]);
    await Promise.all([a.append("d1", "user", "u1", [idp(3), idp(4)]), a.append("d1", "user", "u1", [idp(5)])]);
    expect(names(await a.read("d1", "user", "u1"))).toEqual(["n5", "n4", "n3"]);
    expect(await t.redis.xlen(a.key("d1", "user", "u1"))).toBe(3);
  });

  it("should reject the appends of a directory whose write failed, and write the other directories'", async () => {
    const a = new ActivityStore(t.redis, t.prefix, 50, 1);
    // d1's trail key holds a string: XADD fails there
    await t.redis.set(a.key("d1", "user", "bad"), "not a stream");
    const [bad, good] = await Promise.allSettled([
      a.append("d1", "user", "bad", [idp(1)]),
      a.append("d2", "user", "u1", [idp(2)]),
    ]);
    expect(bad.status).toBe("rejected");
    expect(good.status).toBe("fulfilled");
    expect(names(await a.read("d2", "user", "u1"))).toEqual(["n2"]);
  });
});
