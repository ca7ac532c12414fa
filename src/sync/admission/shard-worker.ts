/**
 * The BullMQ Workers of one process: one per queue shard, whatever the number of directories, all on the
 * process's shared connection (plus the blocking connection BullMQ gives each Worker). A job names its
 * directory; the worker looks up that directory's processor (src/sync/processor.ts), so adding a directory
 * registers a processor and needs no Worker.
 *
 * Before a job runs, its directory's gate: a paused directory's reconcile parks back in its backlog (the
 * job completes as "parked", freeing the shard at once); a held one (429) waits out the hold in the shard's
 * delayed set. When a reconcile finishes for good (completed: just before BullMQ completes its job; or
 * failed after its last attempt) its admission slot is freed and the directory's next resource admitted;
 * while it waits out a retry delay its slot is lent to the next resource and taken back when it runs again.
 *
 * A directory deleted with `platform=deprovision` (src/sync/deleting/deleting.ts) is paused while it waits for the
 * operator: its resync jobs of that delete (`deprovision` in the payload) pass the pause, and its purge job
 * runs whether or not this process still serves it.
 */
import { DelayedError, Worker, type Job } from "bullmq";
import type { RedisConnection } from "../../store/connection";
import type { Logger } from "pino";
import type { Config } from "../../config/schema";
import { SHARD_QUEUE_NAME, shardPrefix } from "../../store";
import { PURGE, RECONCILE, memberOf, type ReconcileJobData, type ResyncJobData } from "../jobs";
import { bridgeBackoff } from "./outcome";
import type { DirectoryProcessor } from "../processor";
import type { SyncQueues } from "./queues";

export type JobProcessor = DirectoryProcessor;

/** How long a job of a directory this process does not serve, or a paused directory's resync, waits. */
const RECHECK_MS = 5000;

/** The result of a reconcile this process parked because it does not serve the directory. */
const NOT_SERVED = "parked: directory not served by this worker";

/** Purges a deleted directory (src/sync/deleting/deleting.ts `purgeDeleted`). */
export type PurgeProcessor = (dir: string, job: Job, token?: string) => Promise<string>;

/**
 * Starts one Worker per shard; `lookup` gives the processor of a directory (undefined: not served here),
 * `purge` runs purge jobs, `onUnserved` is told of a reconcile parked because this process does not serve
 * its directory (it may admit it again for a worker that does).
 */
export function startShardWorkers(
  redis: RedisConnection, queues: SyncQueues, config: Config, logger: Logger, lookup: (dir: string) => JobProcessor | undefined, purge?: PurgeProcessor,
  onUnserved?: (dir: string) => Promise<void>,
): Worker[] {
  const run = async (job: Job, token?: string): Promise<string> => {
    const { dir, kind, id } = job.data as ReconcileJobData;
    if (job.name === PURGE) {
      if (!purge) throw new Error("this worker runs no purge jobs");
      return purge(dir, job, token);
    }
    const reconcile = job.name === RECONCILE;
    const processor = lookup(dir);
    // a reconcile back from a retry delay (an attempt failed) takes its lent slot back; a first run holds its own
    const gate = await queues.admission.gate(dir, reconcile && processor && job.attemptsMade > 0 ? memberOf(kind, id) : "");
    const passesPause = !reconcile && !!(job.data as ResyncJobData).deprovision;
    if (!processor || (gate.paused && !passesPause)) {
      if (reconcile) {
        await queues.park(dir, kind, id);
        if (!processor) await onUnserved?.(dir).catch(() => undefined);
        return processor ? "parked: directory paused" : NOT_SERVED;
      }
      await job.moveToDelayed(Date.now() + RECHECK_MS, token);
      throw new DelayedError(processor ? "directory paused" : "directory not served by this worker");
    }
    if (reconcile && gate.heldMs > 0) {
      await job.moveToDelayed(Date.now() + gate.heldMs, token);
      throw new DelayedError("directory held by the platform's rate limit");
    }
    return processor(job, token);
  };

  const workers: Worker[] = [];
  for (let n = 0; n < queues.shards; n++) {
    const log = logger.child({ shard: n });
    // A reconcile that completes frees its admission slot (admitting the directory's next resource into the
    // shard) before BullMQ completes its job, not on the "completed" event after: BullMQ's moveToCompleted
    // takes the Worker place's next job in the same command, so it now finds the job just admitted. Freed
    // after, the place would find nothing there and wait on the shard's marker (a blocking wake-up plus a
    // moveToActive round trip per job). A closing worker admits nothing it would not run:
    // what it admitted now could not be added to the shard and would hold a slot until the admission recovery.
    const runAndFree = async (job: Job, token?: string): Promise<string> => {
      const result = await run(job, token);
      if (job.name === RECONCILE) {
        const { dir, kind, id } = job.data as ReconcileJobData;
        // a job parked for want of this process's key is not admitted again from here: this worker's
        // completion would take it straight back (BullMQ's fetch of the next job), round and round, and a
        // worker that serves the directory would never see it (onUnserved admits it for one)
        await queues.release(dir, kind, id, !worker.closing && result !== NOT_SERVED)
          .catch((e: Error) => log.warn({ directory: dir, err: { message: e.message } }, "could not free an admission slot (recovered later)"));
      }
      return result;
    };
    const worker: Worker = new Worker(SHARD_QUEUE_NAME, runAndFree, {
      connection: redis, prefix: shardPrefix(config.redis.keyPrefix, n), concurrency: config.sync.shardConcurrency,
      lockDuration: config.sync.lockDurationMs,
      // a dead worker's job is found by the stalled check, which runs this often (BullMQ's default is a fixed 30 s)
      stalledInterval: config.sync.lockDurationMs,
      // a job whose worker died is handed on; after this many deaths BullMQ fails it (recorded below)
      maxStalledCount: config.sync.maxStalledCount,
      settings: { backoffStrategy: (attemptsMade: number) => bridgeBackoff(attemptsMade, config.sync.backoffMs, config.sync.maxBackoffMs) },
    });
    worker.on("error", (err) => log.warn({ err: { message: err.message } }, "worker error"));
    worker.on("failed", (job: Job | undefined, err: Error) => {
      if (!job || job.name !== RECONCILE) return;
      const { dir, kind, id } = job.data as ReconcileJobData;
      log.info({ directory: dir, kind, id, attempts: job.attemptsMade, err: { message: err.message } }, "reconcile failed");
      const next = async () => {
        if (!job.finishedOn) { // BullMQ retries it after its backoff: the slot is lent meanwhile
          await queues.retrying(dir, kind, id);
          return;
        }
        // a job whose workers kept dying (more than sync.maxStalledCount times) is failed by BullMQ on its
        // next pick-up without running (job.deferredFailure): the directory records it as outcome.ts says
        if (job.deferredFailure) {
          log.warn({ directory: dir, kind, id, stalled: job.stalledCounter }, "reconcile failed by BullMQ: its workers kept stopping while running it");
          await lookup(dir)?.failedUnrun(job, job.deferredFailure);
        }
        await queues.release(dir, kind, id, !worker.closing);
      };
      next().catch((e: Error) => log.warn({ directory: dir, err: { message: e.message } }, "could not free or re-queue after a failed reconcile"));
    });
    workers.push(worker);
  }
  return workers;
}
