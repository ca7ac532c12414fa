/**
 * Moves the jobs waiting in the per-directory queues of versions before the shards
 * (`{<keyPrefix>}:dir-<id>`) into the directories' backlogs, once, at worker start. Idempotent: a resource
 * already in its backlog keeps its place, a job is removed from the old queue only after its resource is in
 * the backlog, and a second run (or a second worker) finds nothing left to move. Active jobs still locked (an
 * old worker running during a rolling upgrade) are left to finish; active ones whose lock expired (their
 * worker is gone) are moved; failed and completed ones stay as history.
 * Old resync schedulers are removed (the new worker schedules resyncs on the directory's shard).
 */
import { Queue, type JobType } from "bullmq";
import type { RedisConnection } from "../store/connection";
import type { Logger } from "pino";
import { legacyQueue } from "../store";
import { type SyncKind } from "./state/sync-state";
import { RECONCILE, RESYNC } from "./jobs";
import type { SyncQueues } from "./admission/queues";

/** Moves waiting legacy jobs of these directories; returns how many jobs moved. */
export async function migrateLegacyQueues(redis: RedisConnection, keyPrefix: string, directoryIds: string[], queues: SyncQueues, logger: Logger): Promise<number> {
  if (!directoryIds.length) return 0;
  const pipe = redis.pipeline();
  for (const d of directoryIds) pipe.exists(legacyQueue(keyPrefix, d).metaKey);
  const res = (await pipe.exec()) ?? [];
  let moved = 0;
  for (const [i, dir] of directoryIds.entries()) {
    if (Number(res[i]?.[1] ?? 0) === 0) continue;
    const { prefix, name } = legacyQueue(keyPrefix, dir);
    const old = new Queue(name, { connection: redis, prefix });
    old.on("error", () => undefined);
    try {
      const waiting = (await old.getJobs(["wait", "prioritized", "delayed", "paused" as JobType], 0, -1)).filter(Boolean);
      // an active job whose lock expired belonged to a worker that is gone (stopped for the upgrade): moved too
      const active = (await old.getJobs(["active"], 0, -1)).filter(Boolean);
      const locked = active.length ? await Promise.all(active.map((j) => redis.exists(`${prefix}:${name}:${j.id}:lock`))) : [];
      const jobs = [...waiting, ...active.filter((_, i) => locked[i] === 0)];
      const items: Array<{ kind: SyncKind; id: string }> = [];
      let resync: string | undefined;
      for (const job of jobs) {
        if (job.name === RECONCILE) items.push({ kind: job.data.kind as SyncKind, id: String(job.data.id) });
        else if (job.name === RESYNC) resync = String(job.data.requestedBy ?? "migrated");
      }
      await queues.enqueueMany(dir, items);
      if (resync) await queues.enqueueResync(dir, resync);
      for (const job of jobs) await job.remove().catch(() => undefined);
      for (const s of await old.getJobSchedulers()) if (s.key) await old.removeJobScheduler(s.key);
      moved += jobs.length;
      if (jobs.length) logger.info({ directory: dir, moved: jobs.length }, "moved jobs of the directory's old queue into its shard backlog");
    } finally {
      await old.close().catch(() => undefined);
    }
  }
  return moved;
}
