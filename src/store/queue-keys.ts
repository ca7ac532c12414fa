/**
 * Every Redis key of the sync queues, built in one place (like BullMQ's own queue-keys).
 *
 * Shards: the reconcile and resync jobs of every directory run on a fixed number of BullMQ queues, the
 * shards (`sync.queueShards`). Shard n is the BullMQ queue `sync` under the prefix `{<keyPrefix>:q<n>}`, so
 * its keys are `{<keyPrefix>:q<n>}:sync:<BullMQ suffix>`: each shard hash-tagged on its own, as BullMQ's
 * Redis Cluster pattern says ("to make bull compatible with Redis cluster, use a queue prefix inside
 * brackets"; "if you use several queues in the same cluster, you should use different prefixes so that the
 * queues are evenly placed in the cluster nodes").
 *
 * Admission (src/sync/admission/admission-store.ts), under the directory's own hash tag (P = `<keyPrefix>:{<dir>}:`),
 * so each admission script touches one slot:
 *   P q:backlog    ZSET   "<kind>:<id>" of the resources waiting for a turn, scored by when they were asked
 *                         for (parked ones score 0: first in line). At most one entry per resource.
 *   P q:inflight   ZSET   "<kind>:<id>" of the resources admitted into the shard queue, not finished and
 *                         not waiting out a retry delay, scored by admission time. Admission fills it up to
 *                         the directory's `concurrency`.
 *   P q:retrying   ZSET   "<kind>:<id>" of admitted resources waiting out a retry delay (BullMQ's backoff),
 *                         scored by when the wait began: they do not take a slot meanwhile, so one failing
 *                         item does not stop its directory, and take one back when they run again. While
 *                         2 × `concurrency` wait, nothing more is admitted (a platform outage does not
 *                         pour the whole backlog into the shard).
 *   P q:share      STRING how many resources the directory has admitted since it last had none admitted
 *                         for longer than SHARE_GRACE_MS (src/sync/admission/admission-store.ts; it expires then):
 *                         a busy directory's jobs get later turns in the shard by it (at most 64), so the
 *                         first jobs of a directory that was idle do not queue behind them.
 * Pause (401 or an operator) is the `paused` field of `P s:meta` (src/sync/state/sync-state.ts); a hold (the
 * platform's 429 Retry-After: no admission until then) its `hold` field, the time it ends (ms).
 */
import { DirectoryKeys } from "./keys";

/** BullMQ queue name of every shard. */
export const SHARD_QUEUE_NAME = "sync";

/** BullMQ prefix of shard `n`: hash-tagged on its own. */
export function shardPrefix(keyPrefix: string, n: number): string {
  return `{${keyPrefix}:q${n}}`;
}

/** Admission keys of one directory. */
export class DirectoryQueueKeys {
  readonly backlog: string;
  readonly inflight: string;
  readonly retrying: string;
  readonly share: string;
  constructor(keyPrefix: string, directoryId: string) {
    const p = new DirectoryKeys(keyPrefix, directoryId).prefix;
    this.backlog = `${p}q:backlog`;
    this.inflight = `${p}q:inflight`;
    this.retrying = `${p}q:retrying`;
    this.share = `${p}q:share`;
  }
}
