/**
 * Retry delays: exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And
 * Jitter"): a uniform random delay in [0, min(maxDelayMs, baseDelayMs · 2^(attempt-1))].
 */

/** Retry settings. `attempts` counts every try, the first one included. */
export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Defaults: 3 tries, 200 ms base, 5 s cap. */
export const DEFAULT_RETRY: RetryOptions = { attempts: 3, baseDelayMs: 200, maxDelayMs: 5000 };

/** Delay before the try after `attempt` (1-based). */
export function fullJitterDelay(attempt: number, o: RetryOptions, random = Math.random): number {
  return random() * Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** (attempt - 1));
}
