/**
 * Operator actions on a directory's sync, shared by the worker (401 → pause), the admin API and the CLI:
 * pause with a reason, resume, retry one failed item or all of them. A pause is the directory's `paused`
 * meta field: admission into its shard stops and its admitted jobs park back into its backlog when a
 * worker picks them up, so a paused directory never holds its shard-mates.
 */
import type { SyncKind, SyncStateStore } from "../state/sync-state";
import type { SyncQueues } from "../admission/queues";

/** Pauses a directory (all workers) and records why. */
export async function pauseDirectory(state: SyncStateStore, dir: string, reason: string): Promise<void> {
  await state.setMeta(dir, { paused: reason, pausedAt: new Date().toISOString() });
}

/** Resumes a paused directory, clears the reason and admits its backlog. */
export async function resumeDirectory(queues: SyncQueues, state: SyncStateStore, dir: string): Promise<void> {
  await state.setMeta(dir, { paused: undefined, pausedAt: undefined });
  await queues.admit(dir);
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
