/** The failed-authentication counters in Redis (keys: auth-failure-keys.ts); the policy is src/auth/auth-failures.ts. */
import type { RedisConnection } from "../store/connection";
import { defineStoreCommands, type StoreCommands } from "../store/scripts";

export class AuthFailureStore {
  private readonly redis: RedisConnection & StoreCommands;

  constructor(redis: RedisConnection) {
    this.redis = defineStoreCommands(redis);
  }

  /** Counts one failure under `key` (a key from AuthFailureKeys); the window starts with the first. */
  async count(key: string, windowSeconds: number): Promise<{ n: number; pttl: number }> {
    const [n, pttl] = await this.redis.countAuthFailure(key, String(windowSeconds));
    return { n, pttl };
  }
}
