/**
 * The shard Workers' blocking connections know the server's real version. BullMQ picks its blocking wait
 * from it: told to skip its version check, it assumes Redis 5.0.0, rounds every wait up to whole seconds
 * (no fractional BZPOPMIN timeout before 6.0, no 1 ms wait before 7.0.8), and a delayed job (a retry, a
 * 429 hold) that fell due while its worker waited started up to a second late. Runs on single Redis and, in the cluster project, on the
 * cluster, where the blocking connections are copies of the shared cluster client (src/store/connection.ts).
 */
import { isRedisVersionLowerThan } from "bullmq";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";
import { PLATFORM_KEY, startSyncEnv } from "../helpers/sync-env";

const logger = createLogger("silent");

describe("shard workers' blocking connections", () => {
  it("should learn the server's version, so BullMQ blocks for milliseconds, not whole seconds", async () => {
    const e = await startSyncEnv({ runtime: false, config: { sync: { queueShards: 2 } } });
    try {
      const info = await e.redis.info("server");
      const version = /^redis_version:(\S+)/m.exec(info)![1];
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY } });
      expect(e.runtime.workers).toHaveLength(2);
      for (const worker of e.runtime.workers) {
        const blocking = worker.backend.blockingConnection;
        expect(blocking).toBeDefined();
        await blocking!.client; // resolves once its version is read
        expect(blocking!.redisVersion).toBe(version);
        expect(blocking!.capabilities).toEqual({
          canDoubleTimeout: !isRedisVersionLowerThan(version, "6.0.0", "redis"),
          canBlockFor1Ms: !isRedisVersionLowerThan(version, "7.0.8", "redis"),
        });
      }
    } finally {
      await e.close();
    }
  });
});
