/**
 * What the transport asks before each call: permission to send it now. The one implementation is the
 * shared Redis limiter of the sync engine (src/sync/platform-calls/shared-rate-limiter.ts); the transport itself has no
 * throttle but the client's connection cap (src/platform/in-flight-cap.ts).
 */

/** Hands out permission to send one call, and takes back the release once the call completed. */
export interface CallLimiter {
  acquire(): Promise<() => void>;
}
