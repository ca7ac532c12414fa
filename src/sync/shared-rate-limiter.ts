/**
 * A rate limiter shared by every worker process of a directory, in Redis: a sliding-window log of at most
 * `max` calls per `durationMs` (the directory's `rateLimit`). Like the client's local limiter, a call's
 * entry is re-stamped with its completion time, so the platform never sees more than `max` requests in
 * any window whatever the latency. Key: `<P>s:rate` (a ZSET of call tokens scored by time, ms).
 * The window it keeps is `durationMs` plus 1% (at least 5 ms): a call completes a fraction of a millisecond
 * after the platform counted it and Date.now() truncates to whole milliseconds, so an exact window let the
 * next call reach the platform just inside the platform's window (a 429, which pauses the directory).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { CallLimiter } from "../platform";

/*
  KEYS[1] window zset; ARGV[1] now (ms); ARGV[2] durationMs; ARGV[3] max; ARGV[4] token
  Output: 0 when the call may go now (token recorded), else ms to wait.
*/
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2 + 60000)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1]))`;


/** Several limiters in turn (the directory's window, then its platform account's): a call needs a slot of each. */
export class LimiterChain implements CallLimiter {
  constructor(private readonly limiters: CallLimiter[]) {}

  async acquire(): Promise<() => void> {
    const releases: Array<() => void> = [];
    for (const l of this.limiters) releases.push(await l.acquire());
    return () => { for (const r of releases) r(); };
  }
}

/** The Redis-backed limiter of one directory (or of one platform account). */
export class SharedRateLimiter implements CallLimiter {
  private readonly windowMs: number;

  constructor(private readonly redis: Redis, private readonly key: string, private readonly max: number, durationMs: number) {
    this.windowMs = durationMs + Math.max(5, Math.ceil(durationMs / 100));
  }

  async acquire(): Promise<() => void> {
    const token = randomUUID();
    for (;;) {
      const wait = Number(await this.redis.eval(ACQUIRE, 1, this.key, String(Date.now()), String(this.windowMs), String(this.max), token));
      if (wait === 0) break;
      await sleep(Math.min(wait, this.windowMs));
    }
    return () => {
      // the window of this call starts when it completed (XX: only if still there)
      void this.redis.zadd(this.key, "XX", Date.now(), token).catch(() => undefined);
    };
  }
}
