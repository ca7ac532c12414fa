/**
 * The operator commands straight through Redis, with the configuration of this machine (files + env).
 * `status` reads with the stores alone; the commands that queue work load BullMQ and the sync engine
 * (redis-ops.ts) when first used, so `scim-bridge status` answers without loading them.
 */
import type { Config } from "../../config/schema";
import { directoryStatus, type StatusSource } from "../../admin/directory-status";
import { DirectoryRegistry } from "../../directories/registry";
import { DirectoryRecords } from "../../directories/directory-records";
import { closeConnection, createQueueConnection, waitReady } from "../../store/connection";
import { UserStore } from "../../store/user-store";
import { GroupStore } from "../../store/group-store";
import { SyncStateStore } from "../../sync/state/sync-state";
import { ResyncStore } from "../../sync/resync/resync-store";
import { ExternalUserUsage } from "../../sync/ownership/external-user-usage";
import { UnknownDirectoryError, type OpsBackend } from "./ops-backend";
import type { RedisOps } from "./redis-ops";

/** Connects to the configured Redis (up to 5 s) and returns the backend; `close()` closes the connection. */
export async function redisBackend(config: Config): Promise<OpsBackend> {
  const redis = createQueueConnection(config.redis);
  redis.on("error", () => undefined);
  try {
    await waitReady(redis, 5000);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const p = config.redis.keyPrefix;
  const registry = new DirectoryRegistry(config, new DirectoryRecords(redis, p));
  try {
    await registry.reload();
  } catch { /* config-file directories only */ }
  const source: StatusSource = {
    config, redis, registry, users: new UserStore(redis, p), groups: new GroupStore(redis, p, config.scim.maxGroupMembers),
    state: new SyncStateStore(redis, p), resyncs: new ResyncStore(redis, p), usage: new ExternalUserUsage(redis, p),
  };
  const ids = registry.list().map((e) => e.dir.id);
  let ops: RedisOps | undefined;
  // loaded on first use: status never needs it
  const o = (): RedisOps => (ops ??= (require("./redis-ops") as typeof import("./redis-ops")).redisOps(config, redis, registry));
  return {
    statuses: () => Promise.all(ids.map((id) => directoryStatus(source, id))),
    requireDirectory: async (dir) => {
      if (!ids.includes(dir)) throw new UnknownDirectoryError(dir, ids);
    },
    retryFailed: (dir) => o().retryFailed(dir),
    readResync: (dir) => o().readResync(dir),
    requestDryRun: (dir, by) => o().requestDryRun(dir, by),
    readPlan: (dir) => o().readPlan(dir),
    keepName: (dir, groupId, by) => o().keepName(dir, groupId, by),
    handOver: (req, by) => o().handOver(req, by),
    answerResync: (dir, action, by) => o().answerResync(dir, action, by),
    readBrake: (dir) => o().readBrake(dir),
    answerBrake: (dir, action, by) => o().answerBrake(dir, action, by),
    requestResync: (dir) => o().requestResync(dir),
    readRequests: (dir, filters) => o().readRequests(dir, filters),
    explain: (dir, resource) => o().explain(dir, resource),
    syncNow: (dir, resource, by) => o().syncNow(dir, resource, by),
    resume: (dir) => o().resume(dir),
    close: async () => {
      await ops?.close();
      await closeConnection(redis);
    },
  };
}
