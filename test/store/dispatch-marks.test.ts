/**
 * The store calls of the outbox dispatcher (src/sync/dispatcher.ts), each one script call per batch:
 * marking never-synced resources `pending` (SyncStateStore.markPending) and acking + deleting handled
 * outbox entries (ackOutboxEntries). Through real Redis; on the `cluster` project too, where every key a
 * script touches must be declared and in one slot.
 */
import { DirectoryKeys, SyncStateStore, ackOutboxEntries, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection;
let prefix: string;
let state: SyncStateStore;

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis);
});
beforeEach(() => {
  prefix = testPrefix();
  state = new SyncStateStore(redis, prefix);
});
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

describe("markPending", () => {
  it("should mark every resource of a batch that has no status, and leave those that have one as they are", async () => {
    await state.update("d1", "user", "u2", { status: "synced", platformId: "p2" });
    const marked = await state.markPending("d1", [
      { kind: "user", id: "u1" }, { kind: "user", id: "u2" }, { kind: "group", id: "g1" }, { kind: "user", id: "u1" },
    ]);
    expect(marked).toBe(2); // u1 once, g1; u2 keeps "synced"
    expect((await state.get("d1", "user", "u1")).status).toBe("pending");
    expect((await state.get("d1", "group", "g1")).status).toBe("pending");
    expect(await state.get("d1", "user", "u2")).toMatchObject({ status: "synced", platformId: "p2" });
    expect((await redis.smembers(state.statusKey("d1", "pending"))).sort()).toEqual(["g:g1", "u:u1"]);
    expect(await redis.smembers(state.statusKey("d1", "synced"))).toEqual(["u:u2"]);
    expect(Date.parse((await state.get("d1", "user", "u1")).changedAt!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("should mark a batch as large as a dispatcher read in one call", async () => {
    const items = Array.from({ length: 500 }, (_, i) => ({ kind: "user" as const, id: `u${i}` }));
    expect(await state.markPending("d1", items)).toBe(500);
    expect(await redis.scard(state.statusKey("d1", "pending"))).toBe(500);
  });
});

describe("ackOutboxEntries", () => {
  it("should ack and delete the handled entries only", async () => {
    const stream = new DirectoryKeys(prefix, "d1").outbox;
    await redis.xgroup("CREATE", stream, "dispatch", "0", "MKSTREAM");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await redis.xadd(stream, "*", "k", "user", "id", `u${i}`))!);
    await redis.xreadgroup("GROUP", "dispatch", "c1", "COUNT", 10, "STREAMS", stream, ">");
    expect(await ackOutboxEntries(redis, stream, "dispatch", ids.slice(0, 2))).toBe(2);
    expect((await redis.xrange(stream, "-", "+")).map(([id]) => id)).toEqual([ids[2]]);
    const [pending] = (await redis.xpending(stream, "dispatch")) as [number];
    expect(pending).toBe(1); // the entry not handled stays pending for the sweeper
    expect(await ackOutboxEntries(redis, stream, "dispatch", [])).toBe(0);
  });
});
