/**
 * Keys of one platform account, shared by every directory that talks to it, so they carry no directory
 * hash tag. An account is named by the hash of its canonical identity (src/accounts/account-identity.ts),
 * so two spellings of one base URL share the keys:
 *
 *   <keyPrefix>:acct:<sha1(account)>:external-users   SET   every externalId the bridge provisioned on the
 *                                                           account (the account-wide external-user limit)
 *   <keyPrefix>:acct:<sha1(account)>:owner:<space>    HASH  platform resource → owning directory (ownership.ts)
 */
import { accountHash } from "./account-identity";

export class AccountKeys {
  constructor(private readonly keyPrefix: string) {}

  /** The account's external-user set. */
  externalUsers(baseUrl: string): string {
    return `${this.keyPrefix}:acct:${accountHash(baseUrl)}:external-users`;
  }

  /** The account's owner hash of one space ("u", "g", "eu", "eg:<tenant>"). */
  owners(baseUrl: string, space: string): string {
    return `${this.keyPrefix}:acct:${accountHash(baseUrl)}:owner:${space}`;
  }
}
