/**
 * Test isolation on the shared Redis: every suite gets its own key prefix (`test-<uuid>`) and deletes only
 * keys under it, so tests can run while a demo uses the same Redis.
 *
 * The same suites run on a Redis Cluster (the jest project `cluster`, see test/helpers/redis-cluster.ts):
 * its global setup sets TEST_REDIS_CLUSTER_NODES, and every helper then connects through the cluster.
 */
import { randomUUID } from "node:crypto";
import { Cluster } from "ioredis";
import { createQueueConnection, createStoreConnection, waitReady, type RedisConnection, type RedisSettings } from "../../src/store";

/** The Redis every test talks to. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Seed nodes of the test Redis Cluster (`host:port`, from TEST_REDIS_CLUSTER_NODES), or none. */
export const TEST_CLUSTER_NODES = (process.env.TEST_REDIS_CLUSTER_NODES ?? "").split(",").filter(Boolean);

/** Connection settings of the test Redis (single, or the cluster of the `cluster` project). */
export const TEST_REDIS: RedisSettings = { url: TEST_REDIS_URL, clusterNodes: TEST_CLUSTER_NODES };

/**
 * The database the SCIM-only suites (test/helpers/scim-app.ts) use on a single Redis: index 2, so their
 * "store unchanged" snapshots SCAN only test keys — on database 0 a running demo or `bench:soak` keeps
 * tens of thousands of keys, and every snapshot would walk them all. A cluster has database 0 only.
 */
export const TEST_SCIM_REDIS_URL = TEST_CLUSTER_NODES.length ? TEST_REDIS_URL : withDatabase(TEST_REDIS_URL, 2);

function withDatabase(url: string, db: number): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Environment for `loadConfig` that points the bridge at the test Redis. */
export const TEST_REDIS_ENV: Record<string, string> = {
  REDIS_URL: TEST_REDIS_URL,
  ...(TEST_CLUSTER_NODES.length ? { REDIS_CLUSTER_NODES: TEST_CLUSTER_NODES.join(",") } : {}),
};

/** A fresh prefix for one suite or test. */
export function testPrefix(): string {
  return `test-${randomUUID()}`;
}

/** Every key matching `pattern` (SCAN, never KEYS; on a cluster, SCAN of every master). */
export async function scanKeys(redis: RedisConnection, pattern: string): Promise<string[]> {
  const out: string[] = [];
  for (const node of redis instanceof Cluster ? redis.nodes("master") : [redis]) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      out.push(...keys);
    } while (cursor !== "0");
  }
  return out;
}

/** Deletes keys (one command per key on a cluster, where a multi-key UNLINK must stay in one slot). */
export async function unlinkKeys(redis: RedisConnection, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const chunk = keys.slice(i, i + 1000);
    if (redis instanceof Cluster) await Promise.all(chunk.map((k) => redis.unlink(k)));
    else if (chunk.length) await redis.unlink(...chunk);
  }
}

/** Deletes every key that starts with `prefix` — covers `{prefix}` and `{prefix:q<n>}` BullMQ keys too. */
export async function cleanPrefix(redis: RedisConnection, prefix: string): Promise<void> {
  for (const pattern of [`${prefix}*`, `{${prefix}}*`, `{${prefix}:*`]) await unlinkKeys(redis, await scanKeys(redis, pattern));
}

/** `cleanPrefix` on a connection of its own (for suites that hold no connection of their own). */
export async function cleanPrefixAt(url: string, prefix: string): Promise<void> {
  const redis = createQueueConnection(url === TEST_REDIS_URL ? TEST_REDIS : url);
  try {
    // a cluster client knows its masters only once ready (before, `nodes("master")` holds the seeds)
    await waitReady(redis, 10000);
    await cleanPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

/**
 * For a store test file: one store connection to the test Redis for the whole file, and a fresh key prefix
 * per test whose keys are deleted after it. Registers the jest hooks; read `redis` and `prefix` in tests.
 */
export function storeTestRedis(): { readonly redis: RedisConnection; readonly prefix: string } {
  const t = {} as { redis: RedisConnection; prefix: string };
  beforeAll(async () => {
    t.redis = createStoreConnection(TEST_REDIS);
    await waitReady(t.redis);
  });
  beforeEach(() => { t.prefix = testPrefix(); });
  afterEach(async () => cleanPrefix(t.redis, t.prefix));
  afterAll(() => t.redis.disconnect());
  return t;
}
