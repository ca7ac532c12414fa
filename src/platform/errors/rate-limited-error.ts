/**
 * 429 from the platform. `retryAfterMs` comes from `Retry-After` (delay-seconds or an HTTP-date, RFC 9110
 * §10.2.3); undefined when the header is absent or unreadable. Never retried by the client: the sync engine
 * holds the whole directory's queue for Retry-After instead, without spending an attempt.
 */
import { PlatformError } from "./platform-error";

/** The platform's rate limit was hit. */
export class RateLimitedError extends PlatformError {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    requestId?: string,
  ) {
    super(429, message, requestId);
  }
}
