/**
 * Throttling of failed authentications. Only failures are throttled: a request with a valid token is
 * never refused, whoever failed before it from the same address (DESIGN.md §5 "never refuses a valid
 * token"; behind the TLS proxy the README asks for, every IdP shares the proxy's address). Failures are
 * counted per scope — one directory, or the admin surface — and client address: after `maxFailures`
 * failures within `windowSeconds`, further wrong tokens from that address for that scope get 429 with
 * Retry-After until the window ends, while that address's valid tokens, and other addresses, go on.
 *
 * The client address is Express's `req.ip`, so with `server.trustProxy` only the hops the operator
 * trusts count: a client cannot pick its address with X-Forwarded-For, so it can neither dodge its own
 * limit nor get another client's address throttled.
 *
 * Counts live in Redis (AuthFailureStore; keys from src/auth/auth-failure-keys.ts), shared by every server process; the
 * check of a blocked scope is an in-memory list, so a flood of wrong tokens costs no Redis call once
 * blocked. Without Redis the limiter lets requests through (the SCIM request then gets its 503).
 */
import { type RedisConnection } from "../store";
import { AuthFailureStore } from "./auth-failure-store";

/** Most blocked scopes remembered in memory (bounded under a spray of addresses). */
const MAX_BLOCKED = 100_000;

/** Counts failures per key (scope and address) and says how long a key must wait. */
export class AuthFailureLimiter {
  private readonly blocked = new Map<string, number>();

  private readonly store?: AuthFailureStore;
  constructor(redis: RedisConnection | undefined, readonly maxFailures: number, readonly windowSeconds: number) {
    this.store = redis && new AuthFailureStore(redis);
  }

  /** Seconds `key` must still wait before a failure is answered with 401 again, or 0. */
  retryAfter(key: string): number {
    const until = this.blocked.get(key);
    if (!until) return 0;
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left <= 0) { this.blocked.delete(key); return 0; }
    return left;
  }

  /**
   * Records one failed authentication for `key`: resolves to the seconds to wait when the failure is one
   * too many (answer 429), or 0 (answer 401). The `maxFailures`-th failure is still a 401.
   */
  async fail(key: string): Promise<number> {
    const wait = this.retryAfter(key);
    if (wait || !this.store) return wait;
    try {
      const { n, pttl } = await this.store.count(key, this.windowSeconds);
      if (n < this.maxFailures) return 0;
      if (this.blocked.size >= MAX_BLOCKED) this.blocked.clear();
      const ms = Math.max(1, pttl);
      this.blocked.set(key, Date.now() + ms);
      return n > this.maxFailures ? Math.ceil(ms / 1000) : 0;
    } catch {
      return 0; // fail open: without RedisConnection there is no shared count
    }
  }
}
