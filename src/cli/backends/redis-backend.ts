/** The operator commands straight through Redis, with the configuration of this machine (files + env). */
import type { Config } from "../../config/schema";
import { directoryStatus } from "../../admin/directory-status";
import { createOpsContext } from "../../admin/ops-context";
import { DirectoryRegistry } from "../../directories/registry";
import { closeConnection, createQueueConnection, waitReady } from "../../store";
import { DirectoryRecords } from "../../directories/directory-records";
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
import { RequestLogStore } from "../../scim/request-log/request-log-store";
import { requestLogQuery } from "../../scim/request-log/request-log-query";

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
  const registry = new DirectoryRegistry(config, new DirectoryRecords(redis, config.redis.keyPrefix));
  try {
    await registry.reload();
  } catch { /* config-file directories only */ }
  const c = createOpsContext(config, redis, registry);
  const ids = registry.list().map((e) => e.dir.id);
  return {
    statuses: () => Promise.all(ids.map((id) => directoryStatus(c, id))),
    requireDirectory: async (dir) => {
      if (!ids.includes(dir)) throw new UnknownDirectoryError(dir, ids);
    },
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
    close: async () => {
      await c.queues.close();
      await closeConnection(redis);
    },
  };
}
