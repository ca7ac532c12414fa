/**
 * What a failed reconcile means, decided in one place (STYLE.md: like BullMQ's finished-errors.ts):
 * - transient (5xx, reset, timeout, Redis hiccup): rethrown, so BullMQ retries with exponential backoff and
 *   jitter; the item stays `pending` with its last error; after the last attempt it is `failed`, and queued
 *   again by itself later (revival.ts: a slow capped schedule, and at once when the platform answers again);
 * - rate limited (429): the directory's admission is held for `Retry-After` and the job waits that long in
 *   the shard's delayed set without spending an attempt; its shard-mates are untouched;
 * - auth (401): the directory is paused with the reason recorded, until an operator resumes it; the job
 *   goes back to the shard for a moment and, seeing the pause, parks in the directory's backlog;
 * - scope (403), validation (4xx with the platform's message), mapping, external-user limit: the item is
 *   `failed` with the message (dead letter), no retry; a later change of the desired state, a retry
 *   request or a resync tries again;
 * - wait (a group waiting for its members): re-run after a delay, no attempt spent; its admission slot is
 *   freed meanwhile, so the members it waits for can run even at concurrency 1; and it re-runs at its
 *   directory's last turn, behind the jobs it waits for.
 */
import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import { AuthError, PlatformConfigError, RateLimitedError, ScopeError, ValidationError } from "../../platform";
import type { SyncStateStore, SyncKind } from "../state/sync-state";
import { MappingError, WaitError } from "../context";
import { ExternalUserLimitError } from "../ownership/external-user-usage";
import { unauthorizedReason } from "../control/pause-reason";

export type Verdict = "transient" | "rate-limited" | "auth" | "failed" | "wait";

/** The verdict for an error. */
export function classify(err: unknown): Verdict {
  if (err instanceof WaitError) return "wait";
  if (err instanceof RateLimitedError) return "rate-limited";
  if (err instanceof AuthError) return "auth";
  if (err instanceof ScopeError || err instanceof ValidationError || err instanceof MappingError
    || err instanceof ExternalUserLimitError || err instanceof PlatformConfigError) return "failed";
  return "transient";
}

export interface OutcomeDeps {
  state: SyncStateStore;
  directoryId: string;
  /** Holds the directory's admission for `ms` (429). */
  hold(ms: number): Promise<void>;
  /** Frees the job's admission slot while it waits (WaitError). */
  onWait?(): Promise<void>;
  /** The priority a waiting job re-runs with: its directory's last turn (SyncQueues.waitingPriority). */
  waitPriority?(): number | undefined;
  /** Pauses the directory with a reason (401). */
  pause(reason: string): Promise<void>;
  /** Called when an item ends up failed (resync accounting). */
  onFailed(kind: SyncKind, id: string): Promise<void>;
  /** Called when an item's retries ran out on a transient error (it is queued again later: revival.ts). */
  onTransientFailed?(kind: SyncKind, id: string): Promise<void>;
}

/** Records the failure and throws what makes BullMQ do the right thing. Never returns. */
export async function handleFailure(err: unknown, job: Job, token: string | undefined, kind: SyncKind, id: string, d: OutcomeDeps): Promise<never> {
  const message = err instanceof Error ? err.message : String(err);
  switch (classify(err)) {
    case "wait": {
      // A delayed job comes back into its shard with the priority it has, and a group's first turn is often
      // earlier than those of the users it waits for (admitted after it, or while its directory's share
      // was higher): re-run at that turn, waiting groups could take every run of a shard's worker while the
      // users they wait for never run. At its directory's last turn it goes after every job its directory
      // has in the shard, first in first out among equals.
      const priority = d.waitPriority?.();
      if (priority !== undefined && job.priority !== priority) await job.changePriority({ priority });
      await job.moveToDelayed(Date.now() + (err as WaitError).delayMs, token);
      await d.onWait?.();
      throw new DelayedError(message);
    }
    case "rate-limited": {
      const ms = Math.max(100, (err as RateLimitedError).retryAfterMs ?? 1000);
      await d.state.update(d.directoryId, kind, id, { lastError: message });
      await d.hold(ms);
      await job.moveToDelayed(Date.now() + ms, token);
      throw new DelayedError(message);
    }
    case "auth":
      await d.pause(unauthorizedReason(message));
      await d.state.update(d.directoryId, kind, id, { lastError: message });
      await job.moveToDelayed(Date.now() + 100, token);
      throw new DelayedError(message);
    case "failed":
      await d.state.update(d.directoryId, kind, id, { status: "failed", lastError: message, attempts: job.attemptsMade + 1 });
      await d.onFailed(kind, id);
      throw new UnrecoverableError(message);
    case "transient": {
      const attempts = job.attemptsMade + 1;
      const last = attempts >= (job.opts.attempts ?? 1);
      await d.state.update(d.directoryId, kind, id, { status: last ? "failed" : "pending", lastError: message, attempts });
      if (last) {
        await d.onFailed(kind, id);
        await d.onTransientFailed?.(kind, id);
      }
      throw err instanceof Error ? err : new Error(message);
    }
  }
}

/**
 * A reconcile BullMQ failed without running it: its workers died while it was active more than
 * `sync.maxStalledCount` times (BullMQ's stalled check handed it on each time, then gave up; `job.deferredFailure`).
 * The platform refused nothing, so it is what a transient failure is once its attempts are spent: `failed`
 * with BullMQ's reason, counted by a running resync, and queued again by the revival's slow schedule
 * (revival.ts) — a job that kills its worker does not kill the next one at once.
 */
export async function handleStalledOut(reason: string, job: Job, kind: SyncKind, id: string, d: OutcomeDeps): Promise<void> {
  await d.state.update(d.directoryId, kind, id, {
    status: "failed", lastError: `its workers stopped ${job.stalledCounter} times while reconciling it (BullMQ: ${reason})`, attempts: job.attemptsMade + 1,
  });
  await d.onFailed(kind, id);
  await d.onTransientFailed?.(kind, id);
}

/**
 * Backoff of the "bridge" strategy: exponential from `baseMs`, capped at `maxMs`, with full jitter
 * (a random delay between half and all of it, so retries of many items spread out).
 */
export function bridgeBackoff(attemptsMade: number, baseMs: number, maxMs = 300000): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
