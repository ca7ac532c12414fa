/**
 * Global setup of the jest project `cluster`: starts a local Redis Cluster (3 masters + 3 replicas) and
 * points every test helper at it (TEST_REDIS_CLUSTER_NODES, read by test/helpers/redis.ts), so the store,
 * SCIM and sync suites listed in jest.config.js run unchanged against a cluster connection.
 */
import { ProcessSet } from "../helpers/processes";
import { startRedisCluster } from "../helpers/redis-cluster";

export default async function globalSetup(): Promise<void> {
  const set = new ProcessSet();
  const cluster = await startRedisCluster(set);
  process.env.TEST_REDIS_CLUSTER_NODES = cluster.seeds.join(",");
  (globalThis as { __redisClusterProcesses?: ProcessSet }).__redisClusterProcesses = set;
}
