/**
 * Which outboxes have news, for the dispatcher (src/sync/admission/dispatcher.ts).
 *
 *   <keyPrefix>:outbox:news   ZSET   ids of the directories whose outbox got an entry since a dispatcher
 *                                   last took them, scored by when they were first named (ZPOPMIN: oldest
 *                                   news first; an idle dispatcher waits on it with BZPOPMIN)
 *
 * The dispatcher reads only the outboxes named here, one command each, on single Redis, Sentinel and
 * Redis Cluster alike. Reading them all at once is not possible on a cluster: one command may only name
 * keys of one slot ("CROSSSLOT Keys in request don't hash to the same slot"), and every directory's outbox
 * is in its own slot. On single Redis it is possible, and costly: one blocking XREADGROUP naming every
 * outbox takes Redis milliseconds at 1,000 directories, time in which it serves no other tenant's request,
 * and every write to any outbox wakes it again. With the signal, a round costs one ZPOPMIN plus one short read per directory with news, and
 * an idle dispatcher blocks on the signal alone (one key), so a change to an idle directory is read at once.
 *
 * The write scripts cannot add to this set themselves: on a cluster it is not in the directory's slot
 * ("all the keys of a script must hash to the same slot"). So the store adds the directory after its
 * write script has committed. A signal lost on the way (the process died between the two; a dispatcher
 * took it and died before reading) only delays the entry: the dispatcher still reads every outbox now and
 * then (`fullPollMs`), and the entry is in the stream either way.
 */
import type { RedisConnection } from "./connection";

/** One signal per connection and key prefix, so the user and group stores' notes of one tick share one ZADD. */
const shared = new WeakMap<RedisConnection, Map<string, OutboxSignal>>();

/** The signal of this connection and key prefix (made on first use). */
export function outboxSignalOf(redis: RedisConnection, keyPrefix: string): OutboxSignal {
  let byPrefix = shared.get(redis);
  if (!byPrefix) shared.set(redis, (byPrefix = new Map()));
  let signal = byPrefix.get(keyPrefix);
  if (!signal) byPrefix.set(keyPrefix, (signal = new OutboxSignal(redis, keyPrefix)));
  return signal;
}

/** Key of the sorted set. */
export function outboxSignalKey(keyPrefix: string): string {
  return `${keyPrefix}:outbox:news`;
}

/** Announces and takes directories whose outbox has new entries. */
export class OutboxSignal {
  private readonly key: string;

  constructor(private readonly redis: RedisConnection, keyPrefix: string) {
    this.key = outboxSignalKey(keyPrefix);
  }

  /** Directories noted since the last ZADD. */
  private pending = new Set<string>();

  /**
   * After a write script that appended to the directory's outbox committed. The directories noted in one
   * turn of the event loop go out in one ZADD, not awaited: a SCIM answer does not wait for it, and a lost
   * one only delays the entry until the next full poll (see above).
   */
  notify(directoryId: string): void {
    if (this.pending.size === 0) setImmediate(() => this.flush());
    this.pending.add(directoryId);
  }

  private flush(): void {
    const dirs = [...this.pending];
    this.pending = new Set();
    if (!dirs.length) return;
    // NX: a directory already named keeps its place (its news is the older)
    const now = Date.now();
    this.redis.zadd(this.key, "NX", ...dirs.flatMap((d) => [now, d])).catch(() => undefined);
  }

  /** Takes up to `count` directories, oldest news first (each is taken by one dispatcher). */
  async take(count: number): Promise<string[]> {
    const popped = await this.redis.zpopmin(this.key, count);
    const dirs: string[] = [];
    for (let i = 0; i < popped.length; i += 2) dirs.push(popped[i]);
    return dirs;
  }

  /**
   * Waits on `blocking` (a connection of its own: the wait holds it) up to `timeoutSeconds` for a directory
   * to be named, and takes it; undefined when none was. A whole number of seconds, as Redis 5 takes it.
   */
  async wait(blocking: RedisConnection, timeoutSeconds: number): Promise<string | undefined> {
    const got = await blocking.bzpopmin(this.key, timeoutSeconds);
    return got ? got[1] : undefined;
  }
}
