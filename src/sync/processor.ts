/**
 * The job processor of one directory (its jobs run on its queue shard): a resync job starts a resync; a reconcile job reconciles one
 * resource from its latest desired state, settles its part of a running resync, records metrics, and hands
 * a failure to `outcome.ts`, which decides what BullMQ does next.
 */
import type { Job } from "bullmq";
import type { RedisConnection } from "../store/connection";
import type { SyncKind } from "../store";
import type { Metrics } from "../observability/metrics";
import type { ReconcileContext } from "./context";
import { RESYNC, type ReconcileJobData, type ResyncJobData } from "./jobs";
import { handleFailure } from "./outcome";
import { reconcile } from "./reconcile";
import { settleResync, startResync } from "./resync";
import type { Revival } from "./revival";

export interface ProcessorDeps {
  ctx: ReconcileContext;
  redis: RedisConnection;
  keyPrefix: string;
  pause(reason: string): Promise<void>;
  /** Holds the directory's admission for `ms` (429). */
  hold(ms: number): Promise<void>;
  /** Frees a waiting reconcile's admission slot. */
  onWait?(kind: SyncKind, id: string): Promise<void>;
  metrics?: Metrics;
  /** Queues transient failures again later (issue 9 item 6). */
  revival?: Revival;
}

/** The function a BullMQ Worker runs for each job of the directory. */
export function createProcessor(d: ProcessorDeps): (job: Job, token?: string) => Promise<string> {
  const { ctx, redis, keyPrefix: prefix, metrics } = d;
  const dirId = ctx.dir.id;
  // lastSyncAt is written at most once a second per process: one MULTI per reconcile was a measurable
  // share of a worker's CPU at platform speed, and the operator surface shows it to the second anyway
  let lastSyncWrite = 0;
  return async (job, token) => {
    if (job.name === RESYNC) {
      const started = await startResync({ ...ctx, redis, keyPrefix: prefix }, job.data as ResyncJobData);
      return started ? "started" : "already running";
    }
    const { kind, id } = job.data as ReconcileJobData;
    const endTimer = metrics?.syncJobDuration.startTimer({ directory: dirId, kind });
    try {
      const outcome = await reconcile(ctx, kind, id);
      await settleResync(redis, prefix, dirId, kind, id, outcome);
      if (outcome !== "unchanged" && Date.now() - lastSyncWrite >= 1000) {
        lastSyncWrite = Date.now();
        await ctx.state.setMeta(dirId, { lastSyncAt: new Date().toISOString() });
      }
      metrics?.syncJobs.inc({ directory: dirId, kind, outcome });
      endTimer?.();
      return outcome;
    } catch (err) {
      metrics?.syncJobs.inc({ directory: dirId, kind, outcome: "error" });
      endTimer?.();
      return handleFailure(err, job, token, kind as SyncKind, id, {
        state: ctx.state, directoryId: dirId, pause: d.pause, hold: d.hold,
        onWait: d.onWait ? () => d.onWait!(kind as SyncKind, id) : undefined,
        onFailed: (k, i) => settleResync(redis, prefix, dirId, k, i, "failed"),
        onTransientFailed: d.revival ? (k, i) => d.revival!.failedTransiently(k, i) : undefined,
      });
    }
  };
}
