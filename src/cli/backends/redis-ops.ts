/**
 * The operator commands other than `status` straight through Redis (redis-backend.ts connects and loads
 * this file when one of them runs): they queue jobs, so they need BullMQ and the sync engine.
 */
import type { Config } from "../../config/schema";
import { createOpsContext } from "../../admin/ops-context";
import type { DirectoryRegistry } from "../../directories/registry";
import type { RedisConnection } from "../../store/connection";
import { resumeDirectory, retryFailed } from "../../sync/control/directory-control";
import { explain } from "../../explain/explain";
import { explainDeps } from "../../explain/ops-deps";
import { syncNow } from "../../explain/sync-now";
import { randomUUID } from "node:crypto";
import { answerResync } from "../../sync/resync/confirm";
import { handOver } from "../../sync/ownership/ownership-handover";
import { keepPlatformName } from "../../sync/ownership/keep-name";
import { NameClaims } from "../../sync/ownership/name-claims";
import { answerBrake, brakeStatus } from "../../sync/brake/brake";
import { UnknownDirectoryError, type OpsBackend } from "./ops-backend";

/** The backend's methods that need the queues, and the close of those queues. */
export type RedisOps = Omit<OpsBackend, "statuses" | "requireDirectory">;
import { RequestLogStore } from "../../scim/request-log/request-log-store";
import { requestLogQuery } from "../../scim/request-log/request-log-query";

/** Everything but `status` on Redis: loaded only by the commands that need it (BullMQ and the sync engine load with it). */
export function redisOps(config: Config, redis: RedisConnection, registry: DirectoryRegistry): RedisOps {
  const c = createOpsContext(config, redis, registry);
  const ids = registry.list().map((e) => e.dir.id);
  return {
    retryFailed: (dir) => retryFailed(c.state, dir, (kind, id) => c.queues.enqueue(dir, kind, id)),
    readResync: async (dir) => {
      const p = await c.resyncs.progress(dir);
      return p.status === "awaiting-confirmation" ? { ...p, deprovisions: await c.resyncs.held(dir) } : p;
    },
    requestDryRun: async (dir, by) => {
      const plan = randomUUID();
      await c.queues.enqueueResync(dir, by, { dryRun: plan });
      return plan;
    },
    readPlan: (dir) => c.resyncs.plan(dir),
    keepName: (dir, groupId) => keepPlatformName({ groups: c.groups, state: c.state, claims: new NameClaims(redis, config.redis.keyPrefix), enqueue: (kind, id) => c.queues.enqueue(dir, kind, id) }, registry.get(dir)!.dir, groupId),
    handOver: (req, by) => handOver({ config, redis, state: c.state, queues: c.queues, directory: (id) => registry.get(id)?.dir }, req, by),
    answerResync: (dir, action, by) => answerResync({ redis, keyPrefix: config.redis.keyPrefix, queues: c.queues, directory: (id) => registry.get(id)?.dir }, dir, action, by),
    readBrake: (dir) => brakeStatus(redis, config.redis.keyPrefix, registry.get(dir)!.dir),
    answerBrake: (dir, action, by) => answerBrake({ redis, keyPrefix: config.redis.keyPrefix, enqueue: (d, kind, id) => c.queues.enqueue(d, kind, id) }, dir, action, by),
    requestResync: async (dir) => {
      await c.queues.enqueueResync(dir, "cli");
      return {};
    },
    readRequests: async (dir, filters) => {
      if (!ids.includes(dir)) throw new UnknownDirectoryError(dir, ids);
      return new RequestLogStore(redis, config.redis.keyPrefix).page(dir, requestLogQuery(filters));
    },
    explain: (dir, resource) => explain(explainDeps(c), dir, resource),
    syncNow: (dir, resource, by) => syncNow(explainDeps(c), dir, resource, by),
    resume: (dir) => resumeDirectory(c.queues, c.state, dir),
    close: () => c.queues.close(),
  };
}
