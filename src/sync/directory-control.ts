/**
 * Operator actions on a directory's sync, shared by the worker (401 → pause), the admin API and the CLI:
 * pause with a reason, resume, retry one failed item or all of them.
 */
import type { Queue } from "bullmq";
import type { SyncKind, SyncStateStore } from "../store";

/** Pauses a directory's queue (all workers) and records why. */
export async function pauseDirectory(queue: Queue, state: SyncStateStore, dir: string, reason: string): Promise<void> {
  await state.setMeta(dir, { paused: reason, pausedAt: new Date().toISOString() });
  await queue.pause();
}

/** Resumes a paused directory and clears the reason. */
export async function resumeDirectory(queue: Queue, state: SyncStateStore, dir: string): Promise<void> {
  await state.setMeta(dir, { paused: undefined, pausedAt: undefined });
  await queue.resume();
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
