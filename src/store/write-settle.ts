/**
 * A write's answer tells the truth even when Redis stalls. Every write script that commits records its
 * result under `<P>rq:<request id>` (a few minutes' TTL) in the same atomic step as the write (a refused
 * or no-op write records nothing: it changes nothing). When the call fails in a way that leaves its
 * outcome unknown — command timeout, connection dropped after sending — the store does not answer
 * "unavailable" at once: it waits (bounded) until Redis answers again and runs settleWrite, which either
 * returns the recorded result (the write committed: answer that) or marks the request given up, after
 * which the write can never commit (a resend by the client library finds the mark and does nothing).
 * Only then is "unavailable" (503) the truth: it did not commit. If Redis does not answer within the
 * bound, or the connection was closed for good, the outcome stays unknown and the caller gets the error.
 * With `ack` (replica-ack.ts), a write's answer also waits until replicas hold it.
 */
import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./connection";
import type { ReplicaAck } from "./replica-ack";
import { settledReplyKey } from "./keys";
import type { StoreCommands } from "./scripts";
import { StoreWriteAbandonedError } from "./errors";

/** Seconds a write's result is kept for settlement: well beyond any bound of `settleMs` (≤ 60 s). */
export const WRITE_RESULT_TTL_SECONDS = 120;

/** Errors after which the command may or may not have run. A command never sent (offline) is not one. */
const OUTCOME_UNKNOWN = /Command timed out|Connection is closed|ECONNRESET|EPIPE|MaxRetriesPerRequest|Reached the max retries/i;

/** True when a write failed without anyone knowing whether it committed (it may commit once Redis answers). */
export function writeOutcomeUnknown(err: unknown): boolean {
  return OUTCOME_UNKNOWN.test(message(err));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Runs one write script with a fresh request id (`run(requestId, ttlSeconds)` passes the key of its reply,
 * settledReplyKey, and the seconds to keep it) and returns its reply — the real one even when the first
 * answer was lost — once `ack`'s replicas hold it (`redis` is then `ack.connection`).
 */
export async function settledWrite(
  redis: RedisConnection & StoreCommands, prefix: string, settleMs: number, run: (requestId: string, ttl: string) => Promise<string[]>,
  ack?: ReplicaAck,
): Promise<string[]> {
  const requestId = randomUUID();
  let reply: string[];
  try {
    reply = await run(requestId, String(WRITE_RESULT_TTL_SECONDS));
  } catch (err) {
    // a connection closed for good ("end": quit/disconnect) will not answer again: nothing to wait for
    if (!OUTCOME_UNKNOWN.test(message(err)) || settleMs <= 0 || redis.status === "end") throw err;
    const settled = await settle(redis, settledReplyKey(prefix, requestId), settleMs);
    if (settled === "unknown") throw err;
    if (settled === "not-run") throw new StoreWriteAbandonedError(message(err));
    reply = settled;
  }
  // a resend of a request given up: script-replies.ts throws it (StoreWriteAbandonedError) like any refusal
  // a refused write (conflict, precondition) waits too: what it was refused on may not be replicated either
  if (ack) await ack.confirm(prefix);
  return reply;
}

/** The recorded reply, "not-run" (and now never will), or "unknown" when Redis stayed silent past the bound. */
async function settle(redis: RedisConnection & StoreCommands, marker: string, settleMs: number): Promise<string[] | "not-run" | "unknown"> {
  const end = Date.now() + settleMs;
  for (;;) {
    try {
      if (redis.status === "end") return "unknown";
      const v = await redis.settleWrite(marker, String(WRITE_RESULT_TTL_SECONDS));
      return v === null || v === "ABANDONED" ? "not-run" : (JSON.parse(v) as string[]);
    } catch {
      // still stalled (this call timed out too) or reconnecting: try again until the bound
      if (Date.now() >= end) return "unknown";
      await sleep(Math.min(200, Math.max(0, end - Date.now())));
    }
  }
}
