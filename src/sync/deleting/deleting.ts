/**
 * The sync side of deleting a directory with `platform=deprovision` (src/directories/deprovision.ts starts
 * it). A worker serves the disabled directory for this run only, with an empty desired state
 * (`empty-desired.ts`):
 *   1. the directory is paused (`DELETE_PAUSE_REASON`): nothing of it is admitted, and a reconcile that runs
 *      anyway before the operator confirmed parks again (`gateReconcile`), so nothing is deprovisioned
 *      before the answer;
 *   2. its resync job (it passes the pause) plans the deprovisions and always holds them;
 *   3. confirm: the confirmation job lifts the pause and queues the deprovisions (resync.ts); cancel: the
 *      delete ends, the directory stays disabled with every key (`endDeleting`);
 *   4. once the run is done with no failure (`afterJob`) a purge job (`purgeDeleted`) makes every worker
 *      let go of the directory (stage `purging`), then removes it and every key it had. A run with failed
 *      items keeps the directory (disabled, failures listed): a new `delete --platform deprovision` plans
 *      what is left.
 */
import { DelayedError, type Job } from "bullmq";
import type { Logger } from "pino";
import { SyncStateStore, type SyncKind } from "../state/sync-state";
import { DirectoryRecords } from "../../directories/directory-records";
import { ResyncStore } from "../resync/resync-store";
import type { RedisConnection } from "../../store/connection";
import type { SyncQueues } from "../admission/queues";

/** The pause of a directory whose deprovision run waits for the operator. */
export const DELETE_PAUSE_REASON = "being deleted with platform=deprovision: waiting for an operator to confirm or cancel its deprovisions";

/** How long a purge waits, once it told every process to let go of the directory, before it purges. */
const LET_GO_MS = 2500;
/** How often a purge looks again while the directory's last jobs finish. */
const RECHECK_MS = 500;

/** Ends a delete that will not happen (cancelled): the mark goes, the directory stays disabled and paused until enabled. */
export async function endDeleting(redis: RedisConnection, keyPrefix: string, dir: string): Promise<void> {
  const records = new DirectoryRecords(redis, keyPrefix);
  const rec = await records.get(dir);
  if (!rec?.deprovision) return;
  const { deprovision: _ended, ...rest } = rec;
  await records.put(dir, { ...rest, updatedAt: new Date().toISOString() });
}

/** Lifts the pause a deprovision run set (enable after a cancel); another pause (401, an operator) stays. */
export async function liftDeletePause(redis: RedisConnection, keyPrefix: string, dir: string): Promise<void> {
  const state = new SyncStateStore(redis, keyPrefix);
  if ((await state.meta(dir)).paused === DELETE_PAUSE_REASON) await state.setMeta(dir, { paused: undefined, pausedAt: undefined });
}

/** True once an operator confirmed the directory's deprovision run. */
export async function deleteConfirmed(redis: RedisConnection, keyPrefix: string, dir: string): Promise<boolean> {
  return new ResyncStore(redis, keyPrefix).deleteConfirmed(dir);
}

export interface DeletingDeps {
  redis: RedisConnection;
  keyPrefix: string;
  queues: SyncQueues;
  logger: Logger;
}

/**
 * Before a reconcile of a directory being deleted: undefined when it may run (confirmed); otherwise the
 * directory is paused again and the resource parked in its backlog (what the job answers is returned).
 */
export async function gateReconcile(d: DeletingDeps, dir: string, kind: SyncKind, id: string): Promise<string | undefined> {
  if (await deleteConfirmed(d.redis, d.keyPrefix, dir)) return undefined;
  await new SyncStateStore(d.redis, d.keyPrefix).setMeta(dir, { paused: DELETE_PAUSE_REASON, pausedAt: new Date().toISOString() });
  await d.queues.park(dir, kind, id);
  return "parked: deprovisions not confirmed";
}

/** After a job of a directory being deleted: once its confirmed run is done, the purge is asked for. */
export async function afterJob(d: DeletingDeps, dir: string): Promise<void> {
  const p = await new ResyncStore(d.redis, d.keyPrefix).progress(dir);
  if (p.purpose !== "delete" || !p.confirmedAt || p.status !== "done" || p.phase !== "done") return;
  if (p.failed > 0) {
    d.logger.error({ directory: dir, failed: p.failed }, "deprovision run of a deleted directory finished with failed items: the directory is kept (disabled); see its failed items, then delete again");
    return;
  }
  await d.queues.enqueuePurge(dir);
}

export interface PurgeDeps extends DeletingDeps {
  /** Reloads this process's directory registry (the worker lets go of a directory at once). */
  reload(): Promise<void>;
}

/** The purge job: workers let go of the directory, then it and every key it had are deleted (audited). */
export async function purgeDeleted(d: PurgeDeps, dir: string, job: Job, token?: string): Promise<string> {
  const records = new DirectoryRecords(d.redis, d.keyPrefix);
  const rec = await records.get(dir);
  if (!rec?.deprovision) return "nothing to purge";
  const p = await new ResyncStore(d.redis, d.keyPrefix).progress(dir);
  if (p.purpose !== "delete" || p.status !== "done" || p.phase !== "done" || !p.confirmedAt || p.failed > 0) return "deprovision run not finished";
  const depth = await d.queues.depth(dir);
  if (depth.backlog + depth.admitted > 0) {
    await job.moveToDelayed(Date.now() + RECHECK_MS, token);
    throw new DelayedError("the directory's last reconciles are finishing");
  }
  if (rec.deprovision.stage === "running") {
    await records.put(dir, { ...rec, deprovision: { ...rec.deprovision, stage: "purging" }, updatedAt: new Date().toISOString() });
    await d.reload();
    await job.moveToDelayed(Date.now() + LET_GO_MS, token);
    throw new DelayedError("every process lets go of the directory before its keys are purged");
  }
  await records.remove(dir);
  await d.reload();
  await d.queues.obliterate(dir);
  const deletedKeys = await records.purgeKeys(dir);
  const count = p.deactivated + p.deleted;
  const by = p.confirmedBy ?? rec.deprovision.requestedBy;
  await records.audit({ action: "deleted", directory: dir, by, at: new Date().toISOString(), count, platform: "deprovision", deletedKeys });
  d.logger.warn({ directory: dir, deprovisioned: count, deletedKeys, confirmedBy: by }, "directory deleted after deprovisioning its platform side");
  return `purged ${deletedKeys} keys`;
}
