/**
 * Issue 12 §2 on the cluster: "A worker process holds a bounded number of Redis connections whatever the
 * number of directories (goal: ≤ 16 at 1,000 directories)". Counted on every node of the 3+3 cluster, on
 * connections of the test's own: the worker's shared connection (its name), its registry subscriber and
 * BullMQ's blocking connections (named after the prefix's shards); none of them to a replica. Exactly what
 * the worker needs: its shared connection to each of the 3 masters, the subscriber, and each shard's
 * blocking connection to that shard's master only (no socket opened for a keyless INFO or CLUSTER INFO).
 */
import { Redis } from "ioredis";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";
import { TEST_CLUSTER_NODES } from "../helpers/redis";
import { PLATFORM_KEY, startSyncEnv } from "../helpers/sync-env";
import { createUser, waitStatus } from "../helpers/sync-wait";

const logger = createLogger("silent");

/** Per node role, the connections whose name is or contains `name`, or names one of `prefix`'s shards. */
async function connectionsOf(name: string, prefix: string): Promise<{ master: number; slave: number }> {
  const count = { master: 0, slave: 0 };
  for (const hp of TEST_CLUSTER_NODES) {
    const [host, port] = hp.split(":");
    const node = new Redis(Number(port), host);
    try {
      const role = (await node.role())[0] as "master" | "slave";
      const names = ((await node.client("LIST")) as string).split("\n").map((l) => /(?:^| )name=(\S*)/.exec(l)?.[1] ?? "");
      count[role] += names.filter((n) => n.includes(name) || n.startsWith(`{${prefix}:q`)).length;
    } finally {
      node.disconnect();
    }
  }
  return count;
}

describe("a worker on the cluster", () => {
  it("should hold at most 16 Redis connections at 200 directories (one per master, subscriber, dispatcher wait and shard), none to a replica, and sync any directory", async () => {
    const ids = Array.from({ length: 200 }, (_, i) => `d${i}`);
    const e = await startSyncEnv({ runtime: false, directories: ids.map((id) => ({ id })) });
    try {
      const name = `wc-test-${e.prefix}`;
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, connectionName: name });
      const uid = await createUser(e, "d157", "far.directory@example.com");
      await waitStatus(e, "d157", "user", uid, "synced");
      const conns = await connectionsOf(name, e.prefix);
      expect(conns.master).toBeGreaterThanOrEqual(e.config.sync.queueShards);
      expect(conns.master).toBeLessThanOrEqual(16);
      expect(conns.master).toBeLessThanOrEqual(3 + 1 + 1 + e.config.sync.queueShards);
      expect(conns.slave).toBe(0);
    } finally {
      await e.close();
    }
  }, 60000);
});
