/**
 * Base class of every error the platform client throws, so callers can tell platform failures from their
 * own bugs with one `instanceof`. Each subclass carries the HTTP `status` (0 when no response came back).
 */

/** A failed platform call. `message` is the platform's message word for word when it sent one. */
export class PlatformError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The `x-request-id` of the call, for matching logs. */
    readonly requestId?: string,
  ) {
    super(message);
    this.name = this.constructor.name;
  }
}
