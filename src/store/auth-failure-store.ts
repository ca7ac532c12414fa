/** The failed-authentication counters in Redis (keys: auth-failure-keys.ts); the policy is src/auth/auth-failures.ts. */
import type { RedisConnection } from "./connection";

/* KEYS[1] the counter; ARGV[1] window (s). Output: {count after this failure, ms left in the window} */
const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

export class AuthFailureStore {
  constructor(private readonly redis: RedisConnection) {}

  /** Counts one failure under `key` (a key from AuthFailureKeys); the window starts with the first. */
  async count(key: string, windowSeconds: number): Promise<{ n: number; pttl: number }> {
    const [n, pttl] = (await this.redis.eval(COUNT, 1, key, String(windowSeconds))) as [number, number];
    return { n, pttl };
  }
}
