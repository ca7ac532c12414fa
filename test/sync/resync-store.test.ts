/**
 * The settle script of a directory's resync (src/sync/resync/resync-store.ts) against real Redis: each pending
 * resource counts its outcome once, and the last one finishes the resync — or, when it holds deprovisions
 * for an operator, leaves it awaiting confirmation.
 */
import { createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { ResyncStore } from "../../src/sync/resync/resync-store";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection;
let prefix: string;
let store: ResyncStore;

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis);
});
beforeEach(() => {
  prefix = testPrefix();
  store = new ResyncStore(redis, prefix);
});
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

/** A running resync "r1" of d1 that waits for `members`. */
async function running(members: string[]): Promise<void> {
  expect(await store.lock("d1", "r1")).toBe(true);
  await store.begin("d1", "r1", "test");
  await store.setPhase("d1", "reconciling");
  await store.addPending("d1", members);
}

describe("settle", () => {
  it("should count an outcome once per pending member", async () => {
    await running(["user:a", "user:b", "group:g"]);
    await store.settle("d1", "user:a", "created");
    await store.settle("d1", "user:b", "unchanged");
    expect(await store.progress("d1")).toMatchObject({ status: "running", phase: "reconciling", total: 3, done: 2, created: 1, unchanged: 1, failed: 0 });
    expect(await redis.smembers(store.keys("d1").pending)).toEqual(["group:g"]);
  });

  it("should count nothing for a second settle of the same member", async () => {
    await running(["user:a", "user:b"]);
    await store.settle("d1", "user:a", "updated");
    await store.settle("d1", "user:a", "failed");
    expect(await store.progress("d1")).toMatchObject({ total: 2, done: 1, updated: 1, failed: 0 });
  });

  it("should count nothing for a member the resync does not wait for", async () => {
    await running(["user:a"]);
    await store.settle("d1", "user:z", "created");
    expect(await store.progress("d1")).toMatchObject({ status: "running", done: 0, created: 0 });
  });

  it("should mark the resync done and delete its lock when the last member settles", async () => {
    await running(["user:a", "user:b"]);
    await store.settle("d1", "user:a", "created");
    expect(await redis.get(store.keys("d1").lock)).toBe("r1");
    await store.settle("d1", "user:b", "deactivated");
    const p = await store.progress("d1");
    expect(p).toMatchObject({ id: "r1", status: "done", phase: "done", total: 2, done: 2, created: 1, deactivated: 1 });
    expect(p.finishedAt).toEqual(expect.any(String));
    expect(await redis.exists(store.keys("d1").lock)).toBe(0);
    // the next resync may take the lock
    expect(await store.lock("d1", "r2")).toBe(true);
  });

  it("should keep an awaiting-confirmation resync awaiting, set its phase and delete its lock when the last member settles", async () => {
    await running(["user:a"]);
    await store.hold("d1", [{ kind: "user", id: "x", platformId: "p1", name: "x@example.com" }], "more than 0 deprovisions");
    await store.settle("d1", "user:a", "updated");
    const p = await store.progress("d1");
    expect(p).toMatchObject({ status: "awaiting-confirmation", phase: "awaiting-confirmation", done: 1, updated: 1, held: 1, holdReason: "more than 0 deprovisions" });
    expect(p.finishedAt).toBeUndefined();
    expect(await redis.exists(store.keys("d1").lock)).toBe(0);
    expect(await store.held("d1")).toEqual([{ kind: "user", id: "x", platformId: "p1", name: "x@example.com" }]);
  });

  it("should finish a resync with nothing pending when asked to check", async () => {
    await running([]);
    await store.checkFinished("d1");
    expect(await store.progress("d1")).toMatchObject({ status: "done", phase: "done", total: 0, done: 0 });
    expect(await redis.exists(store.keys("d1").lock)).toBe(0);
  });
});
