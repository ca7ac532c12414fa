/**
 * Operator actions on a directory's sync, shared by the worker (401 → pause), the admin API and the CLI:
 * pause with a reason, resume, retry one failed item or all of them. A pause is the directory's `paused`
 * meta field: admission into its shard stops and its admitted jobs park back into its backlog when a
 * worker picks them up, so a paused directory never holds its shard-mates.
 */
import type { SyncKind, SyncStateStore } from "../state/sync-state";
import type { SyncQueues } from "../admission/queues";
import { isMissingKeyPause } from "./pause-reason";

/** Pauses a directory (all workers) and records why. */
export async function pauseDirectory(state: SyncStateStore, dir: string, reason: string): Promise<void> {
  await state.setMeta(dir, { paused: reason, pausedAt: new Date().toISOString() });
}

/** Resumes a paused directory, clears the reason and admits its backlog. */
export async function resumeDirectory(queues: SyncQueues, state: SyncStateStore, dir: string): Promise<void> {
  await state.setMeta(dir, { paused: undefined, pausedAt: undefined });
  await queues.admit(dir);
}

/**
 * Lifts a pause written because a process lacked the directory's platform key variable (earlier releases
 * paused every worker for it); called by a worker that has the key. True when it lifted one.
 */
export async function liftMissingKeyPause(queues: SyncQueues, state: SyncStateStore, dir: string): Promise<boolean> {
  const meta = await state.meta(dir);
  if (!meta.paused || !isMissingKeyPause(meta.paused)) return false;
  await resumeDirectory(queues, state, dir);
  await state.setMeta(dir, { keyStatus: undefined });
  return true;
}

/** Re-queues failed items (all, or the ones given): status back to pending, reconcile enqueued. */
export async function retryFailed(
  state: SyncStateStore, dir: string, enqueue: (kind: SyncKind, id: string) => Promise<void>, only?: Array<{ kind: SyncKind; id: string }>,
): Promise<number> {
  const items = only ?? await state.inStatus(dir, "failed");
  for (const it of items) {
    await state.update(dir, it.kind, it.id, { status: "pending", attempts: 0 });
    await enqueue(it.kind, it.id);
  }
  return items.length;
}
