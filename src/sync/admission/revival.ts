/**
 * Outage casualties recover by themselves: an item whose retries ran out on transient
 * errors (5xx, timeouts, connection failures) is queued again
 *   - on a slow schedule: `sync.reviveBaseMs` after it failed, then twice as long each time it fails again,
 *     up to `sync.reviveMaxMs` (hours);
 *   - at once when the directory's platform calls succeed again after an outage: at least
 *     `sync.outageGapMs` of failing calls with no success in between, then a 2xx (a job's call, or the
 *     periodic key check) — the schedule starts over then.
 * Validation failures (4xx with the platform's message), mapping errors and conflicts never come here:
 * they wait for a change of the desired state or an operator's retry.
 *
 * The worker ticks every directory's Revival from one timer (src/sync/directory-rounds.ts).
 * State: `reviveKeys` (src/store/keys.ts). Several worker processes may tick at once: an item is taken
 * with ZREM, so one of them queues it.
 */
import type { RedisConnection } from "../../store/connection";
import type { Logger } from "pino";
import { reviveKeys } from "../../store";
import { type SyncKind, type SyncStateStore } from "../state/sync-state";

export interface RevivalOptions {
  baseMs: number;
  maxMs: number;
  outageGapMs: number;
}

/** The revival of one directory's transient failures, in one worker process. */
export class Revival {
  private readonly keys: { due: string; count: string };
  private lastOkAt = Date.now();
  private failingSince?: number;
  private ticking = false;

  constructor(
    private readonly redis: RedisConnection, keyPrefix: string, private readonly dir: string, private readonly state: SyncStateStore,
    private readonly enqueue: (kind: SyncKind, id: string) => Promise<void>, private readonly o: RevivalOptions, private readonly log: Logger,
  ) {
    this.keys = reviveKeys(keyPrefix, dir);
  }

  /** An item's retries ran out on a transient error: schedule it (capped exponential). */
  async failedTransiently(kind: SyncKind, id: string): Promise<void> {
    const member = `${kind}:${id}`;
    const n = await this.redis.hincrby(this.keys.count, member, 1);
    const delay = Math.min(this.o.maxMs, this.o.baseMs * 2 ** Math.min(30, n - 1));
    await this.redis.zadd(this.keys.due, Date.now() + delay, member);
  }

  /** Told the status of every platform call of the directory (0: no answer). */
  onCall(status: number): void {
    const now = Date.now();
    if (status >= 200 && status < 300) {
      const outage = this.failingSince !== undefined && now - this.lastOkAt >= this.o.outageGapMs;
      this.lastOkAt = now;
      this.failingSince = undefined;
      if (outage) void this.reviveAll().catch((err: Error) => this.log.warn({ err: { message: err.message } }, "could not queue the outage's failed items again"));
    } else if (status === 0 || status >= 500) {
      this.failingSince ??= now;
    }
  }

  /** The platform answers again: every scheduled item is due now, and the schedule starts over. */
  async reviveAll(): Promise<number> {
    const members = await this.redis.zrange(this.keys.due, "0", "-1");
    if (!members.length) return 0;
    const now = Date.now();
    await this.redis.multi().zadd(this.keys.due, ...members.flatMap((m) => [String(now), m])).del(this.keys.count).exec();
    this.log.info({ directory: this.dir, items: members.length }, "platform answers again: queueing the items that failed during the outage");
    return this.tick();
  }

  /** Queues the items that are due (still failed); resolves with how many. */
  async tick(): Promise<number> {
    if (this.ticking) return 0;
    this.ticking = true;
    let n = 0;
    try {
      const due = await this.redis.zrangebyscore(this.keys.due, "-inf", Date.now(), "LIMIT", 0, 500);
      for (const member of due) {
        if (!(await this.redis.zrem(this.keys.due, member))) continue; // another worker took it
        const sep = member.indexOf(":");
        const kind = member.slice(0, sep) as SyncKind;
        const id = member.slice(sep + 1);
        const st = await this.state.get(this.dir, kind, id);
        if (st.status !== "failed") { await this.redis.hdel(this.keys.count, member); continue; }
        await this.state.update(this.dir, kind, id, { status: "pending", attempts: 0 });
        await this.enqueue(kind, id);
        n++;
      }
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, "revival tick failed");
    } finally {
      this.ticking = false;
    }
    return n;
  }
}
