/**
 * A client option that cannot work, e.g. a non-HTTPS base URL: the contract says "Only HTTPS is accepted".
 * Thrown by `createPlatformClient`, never by a call.
 */

/** Bad client configuration; the message names the option and the fix. */
export class PlatformConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}
