/**
 * The operator's answer to a resync that holds its deprovisions (status `awaiting-confirmation`, see
 * `resync.ts`): confirm (the held items are deprovisioned by a worker) or cancel (they are dropped and
 * nothing is deprovisioned). Both are atomic on the progress hash (one script: `ResyncStore.answer`), so a
 * second answer finds nothing to answer, and both are audited — who, when, how many — in
 * `<P>resync:audit`, on the progress hash (confirmedBy/At/Count, cancelledBy/At/Count) and in the log.
 *
 * The deprovision run of a directory deleted with `platform=deprovision` (progress `purpose: delete`) is
 * answered the same way, from any of the surfaces (`directory delete … --confirm`, `resync --confirm`, the
 * status page): its answer is also written to the directories' audit list, which outlives the purge; a
 * cancel ends the delete (the directory stays disabled, with every key).
 */
import type { RedisConnection } from "../store/connection";
import { DirectoryRecords, ResyncStore } from "../store";
import { endDeleting } from "./deleting";
import type { Logger } from "pino";
import type { SyncQueues } from "./queues";

/** The result of an answer: `answered` with the resync and count, or why not. */
export type AnswerResult =
  | { answered: true; resync: string; count: number }
  | { answered: false; reason: string };

export interface AnswerDeps {
  redis: RedisConnection;
  keyPrefix: string;
  queues: SyncQueues;
  logger?: Logger;
}

/** Confirms or cancels the held deprovisions of a directory's resync (`expectId`: only that resync's). */
export async function answerResync(d: AnswerDeps, dir: string, action: "confirm" | "cancel", who: string, expectId = ""): Promise<AnswerResult> {
  const store = new ResyncStore(d.redis, d.keyPrefix);
  const a = await store.answer(dir, action, who, expectId);
  if (a.result === "not-awaiting") return { answered: false, reason: a.status ? `the latest resync of ${dir} is ${a.status}, not awaiting confirmation` : `no resync of ${dir} awaits confirmation` };
  if (a.result === "other-awaiting") return { answered: false, reason: `resync ${expectId} is not the one awaiting confirmation (${a.resync} is)` };
  const { resync, count } = a;
  d.logger?.warn({ directory: dir, resync, action, by: who, count }, action === "confirm" ? "resync deprovisions confirmed" : "resync deprovisions cancelled");
  const deleting = (await store.purpose(dir)) === "delete";
  if (deleting) {
    const records = new DirectoryRecords(d.redis, d.keyPrefix);
    await records.audit({ action: action === "confirm" ? "deprovision-confirmed" : "deprovision-cancelled", directory: dir, by: who, at: new Date().toISOString(), count });
    if (action === "cancel") await endDeleting(d.redis, d.keyPrefix, dir);
  }
  // the confirmation of a deleted directory's run passes its pause (it waited for exactly this answer)
  if (action === "confirm") await d.queues.enqueueResync(dir, who, { confirm: resync, ...(deleting ? { deprovision: resync } : {}) });
  return { answered: true, resync, count };
}
