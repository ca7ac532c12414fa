/**
 * Reads of a directory's creation-order set (`users` or `groups`, scored by creation sequence), in bounded
 * slices: what cursor pages and list scans walk so that records added or deleted meanwhile move nothing.
 */
import type { RedisConnection } from "./connection";

const SEQ_SLICE = 1000;

/**
 * Up to `limit` ids created after creation sequence `after` (0: from the first), in creation order, and the
 * sequence of the last one.
 */
export async function idsAfterSeq(redis: RedisConnection, key: string, after: number, limit: number): Promise<{ ids: string[]; seqs: number[]; last: number }> {
  const rows = await redis.zrangebyscore(key, `(${after}`, "+inf", "WITHSCORES", "LIMIT", 0, limit);
  const ids: string[] = [];
  const seqs: number[] = [];
  for (let i = 0; i < rows.length; i += 2) { ids.push(rows[i]); seqs.push(Number(rows[i + 1])); }
  return { ids, seqs, last: rows.length ? seqs[seqs.length - 1] : after };
}

/** The creation sequence of each id (null for an id that does not exist), read 1,000 ids per call. */
export async function seqsOfIds(redis: RedisConnection, key: string, ids: string[]): Promise<Array<number | null>> {
  const out: Array<number | null> = [];
  for (let i = 0; i < ids.length; i += SEQ_SLICE) {
    const scores = await redis.zmscore(key, ...ids.slice(i, i + SEQ_SLICE));
    for (const s of scores) out.push(s === null ? null : Number(s));
  }
  return out;
}
