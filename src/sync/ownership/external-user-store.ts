/**
 * The external users of each platform account (AccountKeys.externalUsers): the set the account-wide limit
 * is counted on. The policy (limit, warning level, errors) is src/sync/ownership/external-user-usage.ts.
 */
import { AccountKeys } from "../../accounts/account-keys";
import type { RedisConnection } from "../../store/connection";
import { defineStoreCommands, type StoreCommands } from "../../store/scripts";

export class ExternalUserStore {
  private readonly keys: AccountKeys;
  private readonly redis: RedisConnection & StoreCommands;
  constructor(redis: RedisConnection, keyPrefix: string) {
    this.keys = new AccountKeys(keyPrefix);
    this.redis = defineStoreCommands(redis);
  }

  key(baseUrl: string): string {
    return this.keys.externalUsers(baseUrl);
  }

  /** Adds `externalId` unless the set holds `limit` already: {ok, usage after, added}. */
  async reserve(baseUrl: string, externalId: string, limit: number): Promise<{ ok: boolean; usage: number; added: boolean }> {
    const [ok, n, added] = await this.redis.reserveExternalUser(this.key(baseUrl), externalId, String(limit));
    return { ok: ok === 1, usage: n, added: added === 1 };
  }

  async release(baseUrl: string, externalId: string): Promise<void> {
    await this.redis.srem(this.key(baseUrl), externalId);
  }

  count(baseUrl: string): Promise<number> {
    return this.redis.scard(this.key(baseUrl));
  }
}
