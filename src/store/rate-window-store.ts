/**
 * Shared platform-call rate windows: a directory's (`<P>s:rate`, SyncStateKeys.rateWindow) and a
 * platform account's (platformAccountRateKey in keys.ts), each a sliding-window log of call tokens scored
 * by time (ms). src/sync/shared-rate-limiter.ts decides how long to wait; this file owns the script.
 */
import type { RedisConnection } from "./connection";
import { inlineCommand } from "./scripts";

/*
  KEYS[1] window zset; ARGV[1] now (ms); ARGV[2] window (ms); ARGV[3] max; ARGV[4] token
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

export class RateWindowStore {
  private readonly acquire: (...args: string[]) => Promise<number>;

  constructor(private readonly redis: RedisConnection) {
    this.acquire = inlineCommand(redis, "rateWindowAcquire", 1, ACQUIRE);
  }

  /** `key`: a window key built in src/store. Records `token` at `nowMs` if fewer than `max` calls fall in the window; else ms to wait (nothing recorded). */
  async tryAcquire(key: string, nowMs: number, windowMs: number, max: number, token: string): Promise<number> {
    return Number(await this.acquire(key, String(nowMs), String(windowMs), String(max), token));
  }

  /** Moves a recorded call to `nowMs` (its completion), if it is still in the window. */
  async restamp(key: string, token: string, nowMs: number): Promise<void> {
    await this.redis.zadd(key, "XX", nowMs, token);
  }
}
