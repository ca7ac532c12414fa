/**
 * The operator's answer to a resync that holds its deprovisions (status `awaiting-confirmation`, see
 * `resync.ts`): confirm (the held items are deprovisioned by a worker) or cancel (they are dropped and
 * nothing is deprovisioned). Both are atomic on the progress hash (one script: `ResyncStore.answer`), so a
 * second answer finds nothing to answer, and both are audited — who, when, how many — in
 * `<P>resync:audit`, on the progress hash (confirmedBy/At/Count, cancelledBy/At/Count) and in the log.
 *
 * A confirmation is checked against the present first (`resync-recheck.ts`): held items the IdP has pushed
 * again since are dropped and counted (`dropped`), and the hold's reason refreshed.
 *
 * The deprovision run of a directory deleted with `platform=deprovision` (progress `purpose: delete`) is
 * answered the same way, from any of the surfaces (`directory delete … --confirm`, `resync --confirm`, the
 * status page): its answer is also written to the directories' audit list, which outlives the purge; a
 * cancel ends the delete (the directory stays disabled, with every key).
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryRecords } from "../../directories/directory-records";
import { ResyncStore } from "./resync-store";
import { endDeleting } from "../deleting/deleting";
import type { Logger } from "pino";
import type { SyncQueues } from "../admission/queues";
import type { DirectoryConfig } from "../../config/schema";
import { recheckHeld } from "./recheck";

/** The result of an answer: `answered` with the resync, count (and what a confirmation's re-check dropped), or why not. */
export type AnswerResult =
  | { answered: true; resync: string; count: number; dropped?: number }
  | { answered: false; reason: string };

export interface AnswerDeps {
  redis: RedisConnection;
  keyPrefix: string;
  queues: SyncQueues;
  logger?: Logger;
  /** The directory's settings: a confirmation first re-checks the held items against the present (resync-recheck.ts). */
  directory?: (id: string) => DirectoryConfig | undefined;
}

/** Confirms or cancels the held deprovisions of a directory's resync (`expectId`: only that resync's). */
export async function answerResync(d: AnswerDeps, dir: string, action: "confirm" | "cancel", who: string, expectId = ""): Promise<AnswerResult> {
  const store = new ResyncStore(d.redis, d.keyPrefix);
  // confirmed against the present: what the IdP pushed again since the hold is dropped first (not for a
  // directory being deleted, whose desired state is empty on purpose)
  const config = d.directory?.(dir);
  let dropped = 0;
  if (action === "confirm" && config && (await store.status(dir)) === "awaiting-confirmation" && (await store.purpose(dir)) !== "delete") {
    dropped = (await recheckHeld({ redis: d.redis, keyPrefix: d.keyPrefix, dir: config })).dropped;
  }
  const a = await store.answer(dir, action, who, expectId, dropped);
  if (a.result === "not-awaiting") return { answered: false, reason: a.status ? `the latest resync of ${dir} is ${a.status}, not awaiting confirmation` : `no resync of ${dir} awaits confirmation` };
  if (a.result === "other-awaiting") return { answered: false, reason: `resync ${expectId} is not the one awaiting confirmation (${a.resync} is)` };
  const { resync, count } = a;
  d.logger?.warn({ directory: dir, resync, action, by: who, count, dropped }, action === "confirm" ? "resync deprovisions confirmed" : "resync deprovisions cancelled");
  const deleting = (await store.purpose(dir)) === "delete";
  if (deleting) {
    const records = new DirectoryRecords(d.redis, d.keyPrefix);
    await records.audit({ action: action === "confirm" ? "deprovision-confirmed" : "deprovision-cancelled", directory: dir, by: who, at: new Date().toISOString(), count });
    if (action === "cancel") await endDeleting(d.redis, d.keyPrefix, dir);
  }
  // the confirmation of a deleted directory's run passes its pause (it waited for exactly this answer)
  if (action === "confirm") await d.queues.enqueueResync(dir, who, { confirm: resync, ...(deleting ? { deprovision: resync } : {}) });
  return { answered: true, resync, count, ...(action === "confirm" ? { dropped } : {}) };
}
