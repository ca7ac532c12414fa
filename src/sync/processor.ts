/**
 * The job processor of one directory (its jobs run on its queue shard): a resync job starts a resync; a reconcile job reconciles one
 * resource from its latest desired state, settles its part of a running resync, records metrics, and hands
 * a failure to `outcome.ts`, which decides what BullMQ does next.
 */
import type { Job } from "bullmq";
import type { RedisConnection } from "../store/connection";
import type { SyncKind } from "./state/sync-state";
import type { Metrics } from "../observability/metrics";
import type { PlatformCallInfo } from "../platform";
import type { ReconcileContext } from "./context";
import { RESYNC, type ReconcileJobData, type ResyncJobData } from "./jobs";
import { classify, handleFailure, handleStalledOut, type OutcomeDeps } from "./admission/outcome";
import { type MinuteCounters } from "../activity/minute-counters";
import { ResyncStore } from "./resync/resync-store";
import { type ActivityEvent, type ActivityStore } from "../activity/activity-store";
import { reconcile } from "./reconcile";
import { startResync } from "./resync/resync";
import type { Revival } from "./admission/revival";
import { afterJob, gateReconcile, type DeletingDeps } from "./deleting/deleting";

export interface ProcessorDeps {
  ctx: ReconcileContext;
  redis: RedisConnection;
  keyPrefix: string;
  pause(reason: string): Promise<void>;
  /** Holds the directory's admission for `ms` (429). */
  hold(ms: number): Promise<void>;
  /** Frees a waiting reconcile's admission slot. */
  onWait?(kind: SyncKind, id: string): Promise<void>;
  /** The priority a waiting reconcile re-runs with (SyncQueues.waitingPriority). */
  waitPriority?(): number | undefined;
  metrics?: Metrics;
  /** Queues transient failures again later. */
  revival?: Revival;
  /** The activity trail (src/activity/activity-store.ts); none: nothing recorded. */
  activity?: ActivityStore;
  /** Per-minute series of the status page's charts. */
  counters?: MinuteCounters;
  /** Set while the directory is deleted with `platform=deprovision` (src/sync/deleting/deleting.ts; `ctx` has an empty desired state). */
  deleting?: DeletingDeps;
}

/** What a Worker runs for each job of a directory, and what it tells the directory of a job BullMQ failed unrun. */
export interface DirectoryProcessor {
  (job: Job, token?: string): Promise<string>;
  /** A reconcile BullMQ failed without running it (`job.deferredFailure`: its workers kept dying). */
  failedUnrun(job: Job, reason: string): Promise<void>;
}

/** The function a BullMQ Worker runs for each job of the directory. */
export function createProcessor(d: ProcessorDeps): DirectoryProcessor {
  const { ctx, redis, keyPrefix: prefix, metrics } = d;
  const dirId = ctx.dir.id;
  // settles each reconcile's part of a running resync
  const resyncs = new ResyncStore(redis, prefix);
  const deps = (kind: SyncKind, id: string): OutcomeDeps => ({
    state: ctx.state, directoryId: dirId, pause: d.pause, hold: d.hold,
    onWait: d.onWait ? () => d.onWait!(kind, id) : undefined,
    waitPriority: d.waitPriority,
    onFailed: async (k, i) => {
      await resyncs.settle(dirId, `${k}:${i}`, "failed");
      if (d.deleting) await afterJob(d.deleting, dirId);
    },
    onTransientFailed: d.revival ? (k, i) => d.revival!.failedTransiently(k, i) : undefined,
  });
  // lastSyncAt is written at most once a second per process: one MULTI per reconcile was a measurable
  // share of a worker's CPU at platform speed, and the operator surface shows it to the second anyway
  let lastSyncWrite = 0;
  const run = async (job: Job, token?: string): Promise<string> => {
    if (job.name === RESYNC) {
      const started = await startResync({ ...ctx, redis, keyPrefix: prefix }, job.data as ResyncJobData);
      if (d.deleting) await afterJob(d.deleting, dirId);
      return started ? "started" : "already running";
    }
    const { kind, id } = job.data as ReconcileJobData;
    // a directory being deleted deprovisions nothing before the operator confirmed
    const parked = d.deleting ? await gateReconcile(d.deleting, dirId, kind, id) : undefined;
    if (parked) return parked;
    const endTimer = metrics?.syncJobDuration.startTimer({ directory: dirId, kind });
    const trail: ActivityEvent[] = [];
    // the platform calls of this reconcile go into its trail: the directory's client is shared by the
    // reconciles running at once, so this one calls through a view that tells it of its own calls
    const jobCtx = d.activity ? { ...ctx, platform: ctx.platform.observed((call) => { trail.push(callEvent(call)); }) } : ctx;
    const record = (e?: Omit<ActivityEvent, "at">) => d.activity?.append(dirId, kind, id, e ? [...trail, { ...e, at: new Date().toISOString() } as ActivityEvent] : trail)
      .catch(() => undefined);
    try {
      const outcome = await reconcile(jobCtx, kind, id);
      // the bookkeeping after a reconcile goes out together: one round trip, not one per write
      const writes = [record({ type: "applied", outcome }), resyncs.settle(dirId, `${kind}:${id}`, outcome)];
      if (outcome !== "unchanged" && Date.now() - lastSyncWrite >= 1000) {
        lastSyncWrite = Date.now();
        writes.push(ctx.state.setMeta(dirId, { lastSyncAt: new Date().toISOString() }));
      }
      await Promise.all(writes);
      if (d.deleting) await afterJob(d.deleting, dirId); // after the resync settled
      metrics?.syncJobs.inc({ directory: dirId, kind, outcome });
      endTimer?.();
      return outcome;
    } catch (err) {
      metrics?.syncJobs.inc({ directory: dirId, kind, outcome: "error" });
      endTimer?.();
      await record(failureEvent(err, job.attemptsMade + 1, job.opts.attempts ?? 1));
      return handleFailure(err, job, token, kind as SyncKind, id, deps(kind as SyncKind, id));
    }
  };
  return Object.assign(run, {
    failedUnrun: async (job: Job, reason: string) => {
      const { kind, id } = job.data as ReconcileJobData;
      await d.activity?.append(dirId, kind as SyncKind, id, [{ type: "failed", message: reason, at: new Date().toISOString() }]).catch(() => undefined);
      await handleStalledOut(reason, job, kind as SyncKind, id, deps(kind as SyncKind, id));
    },
  });
}

/** One platform call, as the trail records it. */
function callEvent({ method, path, status, durationMs, message }: PlatformCallInfo): ActivityEvent {
  return { type: "call", method, path, status, durationMs, ...(message ? { message } : {}), at: new Date().toISOString() };
}

/** What the trail says of a failed reconcile: the same verdict `outcome.ts` acts on. */
function failureEvent(err: unknown, attempt: number, attempts: number): Omit<ActivityEvent, "at"> {
  const message = err instanceof Error ? err.message : String(err);
  switch (classify(err)) {
    case "wait": return { type: "waiting", message };
    case "rate-limited": return { type: "rate-limited", message };
    case "auth": return { type: "paused", message };
    case "failed": return { type: "failed", message };
    default: return attempt >= attempts ? { type: "failed", message, attempt } : { type: "retry", message, attempt };
  }
}
