/**
 * The `cluster` project really runs on the cluster: the helpers' connection is an ioredis Cluster, and one
 * store's directories spread over the three masters, each directory's keys (hash tag `{<dir>}`) in one slot.
 */
import { Cluster } from "ioredis";
import { UserStore, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { TEST_CLUSTER_NODES, TEST_REDIS, cleanPrefix, testPrefix } from "../helpers/redis";

let redis: RedisConnection;
const prefix = testPrefix();

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis, 10000);
});
afterAll(async () => {
  await cleanPrefix(redis, prefix);
  redis.disconnect();
});

describe("the cluster project's Redis", () => {
  it("should be a 6-node cluster reached through ioredis Cluster, with directories spread over its masters", async () => {
    expect(TEST_CLUSTER_NODES).toHaveLength(6);
    expect(redis).toBeInstanceOf(Cluster);
    const cluster = redis as Cluster;
    const users = new UserStore(redis, prefix);
    const dirs = Array.from({ length: 12 }, (_, i) => `dir-${i}`);
    for (const d of dirs) await users.write(d, "u1", { userName: `${d}@example.com` }, "create");
    const holders = new Set<string>();
    for (const master of cluster.nodes("master")) {
      const [, keys] = await master.scan("0", "MATCH", `${prefix}:*`, "COUNT", 10000);
      for (const k of keys) holders.add(`${master.options.port}`);
      // every key a node holds for a directory: that directory's keys are all there (one slot)
      const byDir = new Map<string, number>();
      for (const k of keys) byDir.set(/\{([^}]+)\}/.exec(k)![1], (byDir.get(/\{([^}]+)\}/.exec(k)![1]) ?? 0) + 1);
      for (const n of byDir.values()) expect(n).toBeGreaterThanOrEqual(3); // user hash, users zset, indexes, outbox…
    }
    expect(holders.size).toBeGreaterThanOrEqual(2);
  });
});
