/**
 * The operator's answer to a resync that holds its deprovisions (status `awaiting-confirmation`, see
 * `resync.ts`): confirm (the held items are deprovisioned by a worker) or cancel (they are dropped and
 * nothing is deprovisioned). Both are atomic on the progress hash, so a second answer finds nothing to
 * answer, and both are audited — who, when, how many — in `<P>resync:audit`, on the progress hash
 * (confirmedBy/At/Count, cancelledBy/At/Count) and in the log.
 *
 * The deprovision run of a directory deleted with `platform=deprovision` (progress `purpose: delete`) is
 * answered the same way, from any of the surfaces (`directory delete … --confirm`, `resync --confirm`, the
 * status page): its answer is also written to the directories' audit list, which outlives the purge; a
 * cancel ends the delete (the directory stays disabled, with every key).
 */
import type { RedisConnection } from "../store/connection";
import { DirectoryRecords } from "../store";
import { endDeleting } from "./deleting";
import type { Logger } from "pino";
import type { SyncQueues } from "./queues";
import { LOCK_TTL_S, resyncKeys } from "./resync";
import type { PlanItem } from "./resync-plan";

/*
  KEYS[1] progress, KEYS[2] pending, KEYS[3] lock, KEYS[4] audit, KEYS[5] held
  ARGV[1] "confirm" | "cancel", ARGV[2] who, ARGV[3] now, ARGV[4] lock TTL (s), ARGV[5] expected resync id ("" any)
  Output: {1, resync id, count} when answered; {0, current status} when nothing awaits confirmation;
  {-1, current id} when another resync awaits it.
*/
const ANSWER = `
local st = redis.call('HGET', KEYS[1], 'status')
if st ~= 'awaiting-confirmation' then return {0, st or ''} end
local rid = redis.call('HGET', KEYS[1], 'id')
if ARGV[5] ~= '' and ARGV[5] ~= rid then return {-1, rid} end
local n = redis.call('HLEN', KEYS[5])
if ARGV[1] == 'confirm' then
  redis.call('HSET', KEYS[1], 'status', 'running', 'phase', 'deprovisioning', 'confirmedBy', ARGV[2], 'confirmedAt', ARGV[3], 'confirmedCount', n)
  redis.call('SADD', KEYS[2], 'confirm:' .. rid)
  redis.call('SET', KEYS[3], rid, 'EX', tonumber(ARGV[4]))
else
  redis.call('DEL', KEYS[5])
  redis.call('HSET', KEYS[1], 'cancelledBy', ARGV[2], 'cancelledAt', ARGV[3], 'cancelledCount', n)
  if redis.call('SCARD', KEYS[2]) == 0 then
    redis.call('HSET', KEYS[1], 'status', 'done', 'phase', 'cancelled', 'finishedAt', ARGV[3])
  else
    redis.call('HSET', KEYS[1], 'status', 'running')
  end
end
redis.call('LPUSH', KEYS[4], cjson.encode({action = ARGV[1], resync = rid, by = ARGV[2], at = ARGV[3], count = n}))
redis.call('LTRIM', KEYS[4], 0, 99)
return {1, rid, n}`;

/** The result of an answer: `answered` with the resync and count, or why not. */
export type AnswerResult =
  | { answered: true; resync: string; count: number }
  | { answered: false; reason: string };

/** One entry of the audit list. */
export interface ResyncAuditEntry {
  action: "confirm" | "cancel";
  resync: string;
  by: string;
  at: string;
  count: number;
}

export interface AnswerDeps {
  redis: RedisConnection;
  keyPrefix: string;
  queues: SyncQueues;
  logger?: Logger;
}

/** Confirms or cancels the held deprovisions of a directory's resync (`expectId`: only that resync's). */
export async function answerResync(d: AnswerDeps, dir: string, action: "confirm" | "cancel", who: string, expectId = ""): Promise<AnswerResult> {
  const k = resyncKeys(d.keyPrefix, dir);
  const res = (await d.redis.eval(ANSWER, 5, k.progress, k.pending, k.lock, k.audit, k.held, action, who, new Date().toISOString(), LOCK_TTL_S, expectId)) as [number, string, number?];
  if (res[0] === 0) return { answered: false, reason: res[1] ? `the latest resync of ${dir} is ${res[1]}, not awaiting confirmation` : `no resync of ${dir} awaits confirmation` };
  if (res[0] === -1) return { answered: false, reason: `resync ${expectId} is not the one awaiting confirmation (${res[1]} is)` };
  const [, resync, count] = res;
  d.logger?.warn({ directory: dir, resync, action, by: who, count }, action === "confirm" ? "resync deprovisions confirmed" : "resync deprovisions cancelled");
  const deleting = (await d.redis.hget(k.progress, "purpose")) === "delete";
  if (deleting) {
    const records = new DirectoryRecords(d.redis, d.keyPrefix);
    await records.audit({ action: action === "confirm" ? "deprovision-confirmed" : "deprovision-cancelled", directory: dir, by: who, at: new Date().toISOString(), count: Number(count) });
    if (action === "cancel") await endDeleting(d.redis, d.keyPrefix, dir);
  }
  // the confirmation of a deleted directory's run passes its pause (it waited for exactly this answer)
  if (action === "confirm") await d.queues.enqueueResync(dir, who, { confirm: resync, ...(deleting ? { deprovision: resync } : {}) });
  return { answered: true, resync, count: Number(count) };
}

/** What a resync awaiting confirmation would deprovision (the first `limit`). */
export async function readHeld(redis: RedisConnection, keyPrefix: string, dir: string, limit = 10000): Promise<PlanItem[]> {
  const out: PlanItem[] = [];
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(resyncKeys(keyPrefix, dir).held, cursor, "COUNT", 1000);
    for (let i = 1; i < flat.length; i += 2) out.push(JSON.parse(flat[i]) as PlanItem);
    cursor = next;
  } while (cursor !== "0" && out.length < limit);
  return out.slice(0, limit).sort((a, b) => `${a.kind}:${a.name ?? a.id}`.localeCompare(`${b.kind}:${b.name ?? b.id}`));
}

/** The latest confirmations and cancellations of a directory's resyncs, newest first. */
export async function readResyncAudit(redis: RedisConnection, keyPrefix: string, dir: string): Promise<ResyncAuditEntry[]> {
  return (await redis.lrange(resyncKeys(keyPrefix, dir).audit, 0, 99)).map((s) => JSON.parse(s) as ResyncAuditEntry);
}
