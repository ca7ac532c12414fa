/**
 * The outbox dispatcher's one store command per batch (AdmissionStore.dispatch): marks never-synced
 * resources `pending`, adds them to the directory's backlog, acks and deletes the handled outbox entries and
 * admits what the directory's free slots allow, atomically. Through real Redis; on the `cluster` project
 * too, where every key a script touches must be declared and in one slot.
 */
import { AdmissionStore } from "../../src/sync/admission/admission-store";
import { DirectoryKeys, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { SyncStateStore, type SyncKind } from "../../src/sync/state/sync-state";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection;
let prefix: string;
let state: SyncStateStore;
let admission: AdmissionStore;
let stream: string;

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis);
});
beforeEach(async () => {
  prefix = testPrefix();
  state = new SyncStateStore(redis, prefix);
  admission = new AdmissionStore(redis, prefix);
  stream = new DirectoryKeys(prefix, "d1").outbox;
  await redis.xgroup("CREATE", stream, "dispatch", "0", "MKSTREAM");
});
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

/** Appends one outbox entry per resource and reads them all through the group; returns their ids. */
async function entries(items: Array<{ kind: SyncKind; id: string }>): Promise<string[]> {
  for (const it of items) await redis.xadd(stream, "*", "k", it.kind, "id", it.id);
  const res = (await redis.xreadgroup("GROUP", "dispatch", "c1", "COUNT", 1000, "STREAMS", stream, ">")) as unknown as Array<[string, Array<[string]>]>;
  return res[0][1].map(([id]) => id);
}

const item = (kind: SyncKind, id: string) => ({ kind, id, member: `${kind}:${id}` });

describe("AdmissionStore.dispatch", () => {
  it("should mark the never-synced resources pending, queue each in order, ack the entries and admit up to the cap", async () => {
    await state.update("d1", "user", "u2", { status: "synced", platformId: "p2" });
    const ids = await entries([{ kind: "user", id: "u1" }, { kind: "user", id: "u2" }, { kind: "group", id: "g1" }]);
    const admitted = await admission.dispatch("d1", 2, { stream, group: "dispatch", ids }, [item("user", "u1"), item("user", "u2"), item("group", "g1")]);

    expect(admitted).toEqual([{ member: "user:u1", turn: 1, share: 0 }, { member: "user:u2", turn: 2, share: 0 }]);
    expect(await redis.zrange(admission.keys("d1").backlog, "0", "-1")).toEqual(["group:g1"]); // waits for a slot
    expect((await state.get("d1", "user", "u1")).status).toBe("pending");
    expect((await state.get("d1", "group", "g1")).status).toBe("pending");
    expect(await state.get("d1", "user", "u2")).toMatchObject({ status: "synced", platformId: "p2" }); // keeps its status
    expect((await redis.smembers(state.statusKey("d1", "pending"))).sort()).toEqual(["g:g1", "u:u1"]);
    expect(Date.parse((await state.get("d1", "user", "u1")).changedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(await redis.xlen(stream)).toBe(0); // acked and deleted
    const [pending] = (await redis.xpending(stream, "dispatch")) as [number];
    expect(pending).toBe(0);
  });

  it("should ack only the entries it was given (the others stay pending for the sweeper)", async () => {
    const ids = await entries([{ kind: "user", id: "u1" }, { kind: "user", id: "u2" }]);
    await admission.dispatch("d1", 4, { stream, group: "dispatch", ids: ids.slice(0, 1) }, [item("user", "u1")]);
    expect((await redis.xrange(stream, "-", "+")).map(([id]) => id)).toEqual([ids[1]]);
    const [pending] = (await redis.xpending(stream, "dispatch")) as [number];
    expect(pending).toBe(1);
  });

  it("should keep a resource already in the backlog in its place, and not admit one already in flight", async () => {
    await admission.add("d1", ["user:u0", "user:u1"]);
    expect(await admission.admit("d1", 1)).toEqual(["user:u0"]);
    const ids = await entries([{ kind: "user", id: "u0" }, { kind: "user", id: "u2" }, { kind: "user", id: "u1" }]);
    const admitted = await admission.dispatch("d1", 3, { stream, group: "dispatch", ids }, [item("user", "u0"), item("user", "u2"), item("user", "u1")]);
    // u0 is in flight (its change waits in the backlog for it to finish); u1 kept its place before u2
    expect(admitted.map((a) => a.member)).toEqual(["user:u1", "user:u2"]);
    expect(admitted.map((a) => a.turn)).toEqual([2, 3]);
    expect(admitted[0].share).toBe(1); // the directory was busy: one admitted before
    expect(await redis.zrange(admission.keys("d1").backlog, "0", "-1")).toEqual(["user:u0"]);
  });

  it("should queue and ack but admit nothing while the directory is paused", async () => {
    await redis.hset(state.metaKey("d1"), "paused", "operator");
    const ids = await entries([{ kind: "user", id: "u1" }]);
    expect(await admission.dispatch("d1", 4, { stream, group: "dispatch", ids }, [item("user", "u1")])).toEqual([]);
    expect(await redis.zrange(admission.keys("d1").backlog, "0", "-1")).toEqual(["user:u1"]);
    expect(await redis.xlen(stream)).toBe(0);
  });

  it("should ack entries that name nothing (deleted meanwhile) and admit nothing", async () => {
    await admission.add("d1", ["user:u9"]);
    const ids = await entries([{ kind: "user", id: "u1" }]);
    expect(await admission.dispatch("d1", 4, { stream, group: "dispatch", ids }, [])).toEqual([]);
    expect(await redis.xlen(stream)).toBe(0);
    expect(await redis.zcard(admission.keys("d1").inflight)).toBe(0);
  });

  it("should take a batch as large as a dispatcher read in one call", async () => {
    const items = Array.from({ length: 500 }, (_, i) => ({ kind: "user" as const, id: `u${i}` }));
    const ids = await entries(items);
    const admitted = await admission.dispatch("d1", 16, { stream, group: "dispatch", ids }, items.map((i) => item(i.kind, i.id)));
    expect(admitted.map((a) => a.member)).toEqual(items.slice(0, 16).map((i) => `user:${i.id}`));
    expect(await redis.scard(state.statusKey("d1", "pending"))).toBe(500);
    expect(await redis.zrange(admission.keys("d1").backlog, "0", "2")).toEqual(["user:u16", "user:u17", "user:u18"]);
    expect(await redis.zcard(admission.keys("d1").backlog)).toBe(484);
    expect(await redis.xlen(stream)).toBe(0);
  });
});
