/**
 * A rate limiter shared by every worker process of a directory, in Redis: a sliding-window log of at most
 * `max` calls per `durationMs` (the directory's `rateLimit`). Like the client's local limiter, a call's
 * entry is re-stamped with its completion time, so the platform never sees more than `max` requests in
 * any window whatever the latency. The window (`<P>s:rate`) and its script are RateWindowStore's
 * (src/sync/platform-calls/rate-window-store.ts).
 * The window it keeps is `durationMs` plus 1% (at least 5 ms): a call completes a fraction of a millisecond
 * after the platform counted it and Date.now() truncates to whole milliseconds, so an exact window let the
 * next call reach the platform just inside the platform's window (a 429, which pauses the directory).
 *
 * The re-stamp is no command of its own: it rides on this limiter's next acquire (the script moves the
 * completed calls first, then decides), and when no acquire comes within RESTAMP_WAIT_MS the completed calls
 * are moved in one ZADD. Another process may meanwhile see a call at its start time for those few ms; it
 * matters only to a call that took about a whole window, whose entry was already at its start time while
 * it was in flight.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { randomUUID } from "node:crypto";
import { type RedisConnection } from "../../store";
import { RateWindowStore } from "./rate-window-store";
import type { CallLimiter } from "../../platform";

/** Several limiters in turn (the directory's window, then its platform account's): a call needs a slot of each. */
export class LimiterChain implements CallLimiter {
  constructor(private readonly limiters: CallLimiter[]) {}

  async acquire(): Promise<() => void> {
    const releases: Array<() => void> = [];
    for (const l of this.limiters) releases.push(await l.acquire());
    return () => { for (const r of releases) r(); };
  }
}

/** How long a completed call's re-stamp waits for the next acquire before it is written on its own (ms). */
const RESTAMP_WAIT_MS = 10;

/** The Redis-backed limiter of one directory (or of one platform account). */
export class SharedRateLimiter implements CallLimiter {
  private readonly windowMs: number;

  private readonly windows: RateWindowStore;
  /** Completed calls not re-stamped yet: pairs of (completion ms, token). */
  private restamps: string[] = [];
  private timer?: NodeJS.Timeout;

  /** `key`: the window's key, built in src/store (SyncStateKeys.rateWindow, platformAccountRateKey). */
  constructor(redis: RedisConnection, private readonly key: string, private readonly max: number, durationMs: number) {
    this.windows = new RateWindowStore(redis);
    this.windowMs = durationMs + Math.max(5, Math.ceil(durationMs / 100));
  }

  async acquire(): Promise<() => void> {
    const token = randomUUID();
    for (;;) {
      const wait = await this.windows.tryAcquire(this.key, Date.now(), this.windowMs, this.max, token, this.takeRestamps());
      if (wait === 0) break;
      await sleep(Math.min(wait, this.windowMs));
    }
    return () => {
      // the window of this call starts when it completed (XX: only if still there)
      this.restamps.push(String(Date.now()), token);
      if (!this.timer) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          const restamps = this.takeRestamps();
          if (restamps.length) void this.windows.restamp(this.key, restamps).catch(() => undefined);
        }, RESTAMP_WAIT_MS);
        this.timer.unref();
      }
    };
  }

  /** The completed calls to re-stamp, handed over once (to an acquire or to the timer). */
  private takeRestamps(): string[] {
    const out = this.restamps;
    this.restamps = [];
    return out;
  }
}
