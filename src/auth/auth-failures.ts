/**
 * Failed-authentication limiting per client address: after `maxFailures` failed authentications from one
 * address within `windowSeconds`, that address gets 429 (with Retry-After) until the window ends, valid
 * token or not. Failures are counted in Redis (`<prefix>:authfail:<address>`), so every server process sees
 * them; the check on each request is an in-memory blocklist, so it costs nothing on the hot path.
 * If Redis cannot be reached the limiter lets requests through (the SCIM request then gets its 503).
 * The admin API has its own instance (keys `<prefix>:admin:authfail:<address>`) with the same settings.
 */
import type { Request, RequestHandler, Response } from "express";
import type { Redis } from "ioredis";

const COUNT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('TTL', KEYS[1])}`;

/** Counts failures and blocks addresses over the limit. */
export class AuthFailureLimiter {
  private readonly blocked = new Map<string, number>();

  constructor(private readonly redis: Redis | undefined, private readonly keyPrefix: string, readonly maxFailures: number, readonly windowSeconds: number) {}

  /** Seconds an address must still wait, or 0. */
  retryAfter(address: string): number {
    const until = this.blocked.get(address);
    if (!until) return 0;
    const left = Math.ceil((until - Date.now()) / 1000);
    if (left <= 0) { this.blocked.delete(address); return 0; }
    return left;
  }

  /** Records one failed authentication from `address`. */
  async fail(address: string): Promise<void> {
    if (!this.redis) return;
    try {
      const [n, ttl] = (await this.redis.eval(COUNT, 1, `${this.keyPrefix}:authfail:${address}`, String(this.windowSeconds))) as [number, number];
      if (n >= this.maxFailures) this.blocked.set(address, Date.now() + Math.max(1, ttl) * 1000);
    } catch {
      // fail open: without Redis there is no shared count
    }
    if (this.blocked.size > 100000) this.blocked.clear(); // bounded memory under a spray of addresses
  }

  /**
   * Middleware placed before authentication: 429 with Retry-After for a blocked address. `reject` writes
   * the body in the surface's own format (a SCIM error, the admin API's JSON).
   */
  guard(reject: (req: Request, res: Response) => void): RequestHandler {
    return (req, res, next) => {
      const wait = this.retryAfter(req.ip ?? "unknown");
      if (!wait) return next();
      res.setHeader("Retry-After", String(wait));
      reject(req, res);
    };
  }
}
