/**
 * A failure that may pass on its own: 5xx, connection reset or refused, socket closed, timeout. The client
 * retries these (bounded, exponential backoff with full jitter) before throwing. `status` is 0 when no
 * response came back.
 */
import { PlatformError } from "./platform-error";

/** A retryable failure. */
export class TransientError extends PlatformError {
  constructor(
    status: number,
    message: string,
    requestId?: string,
    /** Low-level code such as `ECONNRESET` or `TIMEOUT` when there was no response. */
    readonly code?: string,
  ) {
    super(status, message, requestId);
  }
}
