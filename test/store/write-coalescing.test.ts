/**
 * Write coalescing (src/store/write-coalescing.ts) against real Redis: the commands sent in one turn of the
 * event loop leave in one socket write, in order, each with its own reply, also when several callbacks of
 * that turn sent them; a reconnected connection is coalesced too; the store connection is coalesced and
 * does not auto-pipeline, on single Redis and on Redis Cluster (src/store/connection.ts).
 */
import { Redis } from "ioredis";
import { closeConnection, coalesceWrites, createQueueConnection, createStoreConnection, nodeFor, waitReady, type RedisConnection } from "../../src/store";
import { cleanPrefix, testPrefix, TEST_REDIS, TEST_CLUSTER_NODES } from "../helpers/redis";

let redis: RedisConnection;
let prefix: string;

beforeAll(async () => {
  redis = createQueueConnection(TEST_REDIS);
  coalesceWrites(redis);
  await waitReady(redis);
});
beforeEach(() => { prefix = testPrefix(); });
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

/** The socket of a single-Redis connection, with its write syscalls counted (writev counts once). */
function countWrites(r: RedisConnection): { count: () => number } {
  const stream = (r as unknown as { stream: { _writev?: (...a: unknown[]) => void; _write: (...a: unknown[]) => void } }).stream;
  let n = 0;
  const w = stream._write;
  const wv = stream._writev;
  stream._write = function (...a: unknown[]) { n++; return w.apply(this, a); };
  if (wv) stream._writev = function (...a: unknown[]) { n++; return wv.apply(this, a); };
  return { count: () => n };
}

describe("coalesceWrites", () => {
  const single = TEST_CLUSTER_NODES.length ? it.skip : it;

  single("should send the commands of one tick in one socket write, each answered in order", async () => {
    const writes = countWrites(redis);
    const key = `${prefix}:{d}:k`;
    const replies = await Promise.all([redis.incr(key), redis.incr(key), redis.get(key), redis.incrby(key, 10), redis.del(key)]);
    expect(replies).toEqual([1, 2, "2", 12, 1]);
    expect(writes.count()).toBe(1);
  });

  single("should send the commands of several callbacks of one loop turn in one socket write", async () => {
    const writes = countWrites(redis);
    const key = `${prefix}:{d}:t`;
    // three callbacks, as when several jobs' replies or platform answers arrive in one poll phase: each
    // runs after the ticks the one before it queued
    const replies = await new Promise<unknown[]>((resolve, reject) => {
      const sent: Promise<unknown>[] = [redis.incr(key)];
      process.nextTick(() => {
        sent.push(redis.incr(key));
        process.nextTick(() => {
          sent.push(redis.get(key));
          Promise.all(sent).then(resolve, reject);
        });
      });
    });
    expect(replies).toEqual([1, 2, "2"]);
    expect(writes.count()).toBe(1);
  });

  single("should coalesce a single-Redis store connection, which does not auto-pipeline: each reply is its command's own", async () => {
    const store = createStoreConnection(TEST_REDIS);
    await waitReady(store);
    // auto-pipelining keeps one batch in flight and answers its commands only once the last reply is in
    expect((store as Redis).options.enableAutoPipelining).toBe(false);
    const writes = countWrites(store);
    const key = `${prefix}:{d}:p`;
    const replies = await Promise.all([store.incr(key), store.incr(key), store.get(key), store.incrby(key, 10), store.del(key)]);
    expect(replies).toEqual([1, 2, "2", 12, 1]);
    expect(writes.count()).toBe(1);
    await closeConnection(store);
  });

  const cluster = TEST_CLUSTER_NODES.length ? it : it.skip;

  cluster("should send a cluster store connection's commands of one tick to a node in one socket write", async () => {
    const store = createStoreConnection(TEST_REDIS);
    await waitReady(store);
    const key = `${prefix}:{d}:s`;
    await store.set(key, "0"); // connects the master of the key's slot
    const writes = countWrites(nodeFor(store, key)!);
    const replies = await Promise.all([store.incr(key), store.incr(key), store.get(key), store.incrby(key, 10), store.del(key)]);
    expect(replies).toEqual([1, 2, "2", 12, 1]);
    expect(writes.count()).toBe(1);
    await closeConnection(store);
  });

  it("should keep working after a reconnect", async () => {
    const own = createQueueConnection(TEST_REDIS) as Redis;
    coalesceWrites(own);
    await waitReady(own);
    const key = `${prefix}:{d}:r`;
    await own.set(key, "1");
    own.disconnect(true);
    await waitReady(own, 10000);
    expect(await Promise.all([own.incr(key), own.incr(key)])).toEqual([2, 3]);
    own.disconnect();
  });
});
