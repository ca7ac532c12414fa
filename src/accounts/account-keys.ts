/**
 * Keys of one platform account, shared by every directory that talks to it, so they carry no directory
 * hash tag. An account is named by the hash of its canonical identity (src/accounts/account-identity.ts),
 * so two spellings of one base URL share the keys:
 *
 *   <keyPrefix>:acct:<sha1(account)>:external-users   SET   every externalId the bridge provisioned on the
 *                                                           account (the account-wide external-user limit)
 *   <keyPrefix>:acct:<sha1(account)>:owner:<space>    HASH  platform resource → owning directory (ownership.ts)
 *
 * `legacy` builds the same keys under the hash earlier releases used (the base URL as typed), for the
 * start-up move (src/accounts/account-migration.ts).
 */
import { accountHash, legacyAccountHash } from "./account-identity";

export class AccountKeys {
  constructor(private readonly keyPrefix: string, private readonly hash: (baseUrl: string) => string = accountHash) {}

  /** The same keys under the hash of the base URL as typed (earlier releases). */
  static legacy(keyPrefix: string): AccountKeys {
    return new AccountKeys(keyPrefix, legacyAccountHash);
  }

  /** The account's external-user set. */
  externalUsers(baseUrl: string): string {
    return `${this.keyPrefix}:acct:${this.hash(baseUrl)}:external-users`;
  }

  /** The account's owner hash of one space ("u", "g", "eu", "eg:<tenant>"). */
  owners(baseUrl: string, space: string): string {
    return `${this.keyPrefix}:acct:${this.hash(baseUrl)}:owner:${space}`;
  }
}
