/**
 * The activity trail (src/store/activity-store.ts) against real Redis: appended at once, or, with `flushMs`
 * (the SCIM server), kept in the process and written together by the timer, `flush()` or `close()`, each
 * trail's events in order and capped at `maxEvents`; a forgotten directory's events are never written.
 */
import { ActivityStore, type ActivityEvent } from "../../src/store";
import { storePerTest } from "../helpers/redis";
import { waitFor } from "../helpers/sync-env";

const t = storePerTest();

const idp = (n: number): ActivityEvent => ({ type: "idp", at: `2026-11-27T00:00:${String(n).padStart(2, "0")}.000Z`, method: "PATCH", status: 204, attributes: [`title${n}`] });
const titles = (events: ActivityEvent[]) => events.map((e) => e.attributes?.[0]);

describe("ActivityStore", () => {
  it("should append at once without flushMs", async () => {
    const a = new ActivityStore(t.redis, t.prefix, 5);
    await a.append("d1", "user", "u1", [idp(1)]);
    expect(titles(await a.read("d1", "user", "u1"))).toEqual(["title1"]);
  });

  it("should keep events in the process with flushMs and write them on flush, in order and capped at maxEvents", async () => {
    const a = new ActivityStore(t.redis, t.prefix, 5, 30, 60_000);
    for (let i = 0; i < 8; i++) await a.append("d1", "user", "u1", [idp(i)]);
    await a.append("d2", "group", "g1", [idp(20), idp(21)]);
    // one EXISTS per directory: on a cluster, the keys of two directories lie in different slots
    expect(await t.redis.exists(a.key("d1", "user", "u1"))).toBe(0);
    expect(await t.redis.exists(a.key("d2", "group", "g1"))).toBe(0);
    await a.flush();
    expect(titles(await a.read("d1", "user", "u1"))).toEqual(["title7", "title6", "title5", "title4", "title3"]); // newest first
    expect(titles(await a.read("d2", "group", "g1"))).toEqual(["title21", "title20"]);
    expect(await t.redis.ttl(a.key("d1", "user", "u1"))).toBeGreaterThan(0);
    await a.append("d1", "user", "u1", [idp(8)]);
    await a.close();
    expect(titles(await a.read("d1", "user", "u1"))[0]).toBe("title8");
  });

  it("should write by itself once flushMs has passed", async () => {
    const a = new ActivityStore(t.redis, t.prefix, 5, 30, 20);
    await a.append("d1", "user", "u1", [idp(1)]);
    await waitFor(async () => (await a.read("d1", "user", "u1")).length === 1, 5000, "the timed write");
    await a.close();
  });

  it("should write nothing of a directory it was told to forget (a deleted directory's keys stay purged)", async () => {
    const a = new ActivityStore(t.redis, t.prefix, 5, 30, 60_000);
    await a.append("gone", "user", "u1", [idp(1)]);
    await a.append("kept", "user", "u1", [idp(2)]);
    a.forget("gone");
    await a.close();
    expect(await t.redis.exists(a.key("gone", "user", "u1"))).toBe(0);
    expect(titles(await a.read("kept", "user", "u1"))).toEqual(["title2"]);
  });
});
