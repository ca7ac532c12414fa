/** What the operator surface (admin API, status page, CLI, metrics) reads: config, Redis, queues, stores. */
import type { RedisConnection } from "../store/connection";
import type { Config } from "../config/schema";
import { DirectoryRegistry } from "../directories/registry";
import { GroupStore, UserStore } from "../store";
import { SyncStateStore } from "../sync/state/sync-state";
import { ResyncStore } from "../sync/resync/resync-store";
import { ExternalUserUsage } from "../sync/ownership/external-user-usage";
import { SyncQueues } from "../sync/admission/queues";

export interface OpsContext {
  config: Config;
  redis: RedisConnection;
  queues: SyncQueues;
  users: UserStore;
  groups: GroupStore;
  state: SyncStateStore;
  resyncs: ResyncStore;
  usage: ExternalUserUsage;
  /** The directories as they are now (config file and runtime). */
  registry: DirectoryRegistry;
}

/** Builds the context on a queue-style connection (one that waits through Redis restarts). */
export function createOpsContext(config: Config, redis: RedisConnection, registry = DirectoryRegistry.fromConfig(config)): OpsContext {
  const p = config.redis.keyPrefix;
  // the operator's queue view knows every directory the registry knows, runtime ones included, so a retry,
  // resync or hand-over of a directory made at runtime reaches its admission like a config-file one's
  const queues = new SyncQueues(redis, config);
  for (const e of registry.list()) queues.register(e.dir.id, e.dir.concurrency);
  registry.onChange((id, after) => { if (after) queues.register(id, after.dir.concurrency); else queues.unregister(id); });
  return {
    config, redis, registry, queues,
    users: new UserStore(redis, p), groups: new GroupStore(redis, p, config.scim.maxGroupMembers),
    state: new SyncStateStore(redis, p), resyncs: new ResyncStore(redis, p), usage: new ExternalUserUsage(redis, p),
  };
}
