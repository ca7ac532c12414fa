/**
 * Keys of the failed-authentication counters (src/auth/auth-failures.ts), one STRING per scope and client
 * address, holding the number of failures in the current window and expiring with it:
 *
 *   <keyPrefix>:{<directoryId>}:authfail:<address>    wrong SCIM tokens for one directory id, under the
 *                                                      directory's hash tag like its other keys. Ids that are
 *                                                      not configured count the same way, so the answers do not
 *                                                      tell which directories exist
 *   <keyPrefix>:authfail:invalid-directory:<address>   wrong tokens for a path segment that cannot be a directory
 *                                                      id at all (one bucket: odd text never becomes a key)
 *   <keyPrefix>:admin:authfail:<address>               wrong admin tokens (API header or sign-in form)
 */

/** Key builder for the failed-authentication counters. */
export class AuthFailureKeys {
  constructor(private readonly keyPrefix: string) {}

  /** Counter of one client address for one directory id; undefined: text that cannot be a directory id. */
  directory(directoryId: string | undefined, address: string): string {
    return directoryId === undefined
      ? `${this.keyPrefix}:authfail:invalid-directory:${address}`
      : `${this.keyPrefix}:{${directoryId}}:authfail:${address}`;
  }

  /** Counter of one client address on the admin surface. */
  admin(address: string): string {
    return `${this.keyPrefix}:admin:authfail:${address}`;
  }
}
