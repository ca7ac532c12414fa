/**
 * Shared platform-call rate windows: a directory's (`<P>s:rate`, SyncStateKeys.rateWindow) and a
 * platform account's (platformAccountRateKey in keys.ts), each a sliding-window log of call tokens scored
 * by time (ms). src/sync/platform-calls/shared-rate-limiter.ts decides how long to wait; this file owns the script.
 */
import type { RedisConnection } from "../../store/connection";
import { defineStoreCommands, type StoreCommands } from "../../store/scripts";

export class RateWindowStore {
  private readonly redis: RedisConnection & StoreCommands;

  constructor(redis: RedisConnection) {
    this.redis = defineStoreCommands(redis);
  }

  /**
   * `key`: a window key built in src/store. First moves the calls of `restamps` (completion time ms, token) to
   * their completion; then records `token` at `nowMs` if fewer than `max` calls fall in the window; else
   * answers the ms to wait (nothing recorded).
   */
  async tryAcquire(key: string, nowMs: number, windowMs: number, max: number, token: string, restamps: string[] = []): Promise<number> {
    return Number(await this.redis.acquireRateWindow(key, String(nowMs), String(windowMs), String(max), token, ...restamps));
  }

  /** Moves recorded calls to their completion time, those still in the window: pairs of (ms, token). */
  async restamp(key: string, restamps: string[]): Promise<void> {
    await this.redis.zadd(key, "XX", ...restamps);
  }
}
