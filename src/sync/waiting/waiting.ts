/**
 * What waits in a directory, read for the operator: where one resource stands in line (outbox, backlog,
 * in flight, retrying) and how old the oldest waiting change is — the figure a lag must show, since a
 * platform outage or a pause lets changes wait while no job finishes. Every key read is the directory's
 * (one hash tag), sent together in one pipeline; each read is O(log n) or O(1), whatever the backlog.
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryKeys } from "../../store/keys";
import { DirectoryQueueKeys } from "../../store/queue-keys";
import { SyncStateKeys } from "../state/sync-state-keys";

/** Where one resource stands. */
export interface Standing {
  /** In the backlog: how many are ahead of it (null: not in the backlog). */
  ahead: number | null;
  backlog: number;
  /** Resources of the directory admitted and not finished (running, or about to run). */
  running: number;
  /** Admitted and running (or about to run) since this time. */
  inFlightSince: string | null;
  /** Waiting out a retry delay since this time. */
  retryingSince: string | null;
  /** Changes accepted from the IdP not yet taken into the backlog. */
  outbox: number;
  /** The platform asked the directory to wait (429): nothing is admitted before this time. */
  heldUntil: string | null;
}

const iso = (score: string | null) => (score === null ? null : new Date(Number(score)).toISOString());

/** Where the resource `member` ("<kind>:<id>") of `dir` stands. */
export async function standing(redis: RedisConnection, keyPrefix: string, dir: string, member: string): Promise<Standing> {
  const q = new DirectoryQueueKeys(keyPrefix, dir);
  const res = (await redis.pipeline().zrank(q.backlog, member).zcard(q.backlog).zscore(q.inflight, member)
    .zscore(q.retrying, member).xlen(new DirectoryKeys(keyPrefix, dir).outbox).hget(new SyncStateKeys(keyPrefix, dir).meta, "hold").zcard(q.inflight).exec()) ?? [];
  const v = res.map(([err, value]) => { if (err) throw err; return value; });
  return {
    ahead: v[0] === null ? null : Number(v[0]), backlog: Number(v[1]),
    inFlightSince: iso(v[2] as string | null), retryingSince: iso(v[3] as string | null), outbox: Number(v[4]),
    running: Number(v[6]),
    heldUntil: Number(v[5] ?? 0) > Date.now() ? new Date(Number(v[5])).toISOString() : null,
  };
}

/** The oldest change that waits, and since when. */
export interface OldestWaiting {
  /** When the oldest waiting change was accepted (null: nothing waits). */
  since: string | null;
  /** Its age at the time of the read (0 when nothing waits). */
  ageMs: number;
  /** Changes in the outbox plus resources in the backlog and admitted (running or retrying). */
  waiting: number;
  /** Changes accepted from the IdP not yet taken into the backlog. */
  outbox: number;
  /** Resources waiting for a turn (a paused directory's included). */
  backlog: number;
  /** Resources admitted into the shard and not finished: running, about to run, or waiting out a retry delay. */
  admitted: number;
}

/**
 * The age of what waits: the earliest of the outbox's first entry (its id is its time), the backlog's
 * earliest request, the longest admitted and the longest retrying resource. A resource parked by a pause
 * keeps no time of its own (score 0, first in line): it waits at least since the pause (`pausedAt`).
 */
export async function oldestWaiting(redis: RedisConnection, keyPrefix: string, dir: string, pausedAt?: string, now = Date.now()): Promise<OldestWaiting> {
  const q = new DirectoryQueueKeys(keyPrefix, dir);
  const outbox = new DirectoryKeys(keyPrefix, dir).outbox;
  const res = (await redis.pipeline()
    .xrange(outbox, "-", "+", "COUNT", 1).xlen(outbox)
    .zrangebyscore(q.backlog, "(0", "+inf", "WITHSCORES", "LIMIT", 0, 1).zcount(q.backlog, 0, 0).zcard(q.backlog)
    .zrange(q.inflight, "0", "0", "WITHSCORES").zcard(q.inflight)
    .zrange(q.retrying, "0", "0", "WITHSCORES").zcard(q.retrying)
    .exec()) ?? [];
  const v = res.map(([err, value]) => { if (err) throw err; return value; });
  const times: number[] = [];
  const first = (v[0] as Array<[string, string[]]>)[0];
  if (first) times.push(Number(first[0].split("-")[0]));
  for (const i of [2, 5, 7]) { const pair = v[i] as string[]; if (pair.length === 2) times.push(Number(pair[1])); }
  if (Number(v[3]) > 0) times.push(pausedAt ? Date.parse(pausedAt) : now);
  const counts = { outbox: Number(v[1]), backlog: Number(v[4]), admitted: Number(v[6]) + Number(v[8]) };
  const waiting = counts.outbox + counts.backlog + counts.admitted;
  const valid = times.filter((t) => Number.isFinite(t) && t > 0);
  if (!waiting || !valid.length) return { since: null, ageMs: 0, waiting, ...counts };
  const oldest = Math.min(...valid);
  return { since: new Date(oldest).toISOString(), ageMs: Math.max(0, now - oldest), waiting, ...counts };
}
