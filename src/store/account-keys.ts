/**
 * Keys of one platform account, shared by every directory that talks to it (same base URL), so they carry
 * no directory hash tag:
 *
 *   <keyPrefix>:acct:<sha1(baseUrl)>:external-users   SET  every externalId the bridge provisioned on the
 *                                                           account (the account-wide external-user limit)
 */
import { createHash } from "node:crypto";

export class AccountKeys {
  constructor(private readonly keyPrefix: string) {}

  /** The account's external-user set; the base URL is hashed so no URL text becomes a key. */
  externalUsers(baseUrl: string): string {
    return `${this.keyPrefix}:acct:${createHash("sha1").update(baseUrl).digest("hex")}:external-users`;
  }
}
