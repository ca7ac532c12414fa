/**
 * The external users of each platform account (AccountKeys.externalUsers): the set the account-wide limit
 * is counted on. The policy (limit, warning level, errors) is src/sync/external-user-usage.ts.
 */
import { AccountKeys } from "./account-keys";
import type { RedisConnection } from "./connection";

/*
  KEYS[1] the account's set; ARGV[1] externalId, ARGV[2] limit
  Output: {ok (1|0), usage after, added (1 when this call counted it)}
*/
const RESERVE = `
local n = redis.call('SCARD', KEYS[1])
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, n, 0} end
if n >= tonumber(ARGV[2]) then return {0, n, 0} end
redis.call('SADD', KEYS[1], ARGV[1])
return {1, n + 1, 1}`;

export class ExternalUserStore {
  private readonly keys: AccountKeys;
  constructor(private readonly redis: RedisConnection, keyPrefix: string) {
    this.keys = new AccountKeys(keyPrefix);
  }

  key(baseUrl: string): string {
    return this.keys.externalUsers(baseUrl);
  }

  /** Adds `externalId` unless the set holds `limit` already: {ok, usage after, added}. */
  async reserve(baseUrl: string, externalId: string, limit: number): Promise<{ ok: boolean; usage: number; added: boolean }> {
    const [ok, n, added] = (await this.redis.eval(RESERVE, 1, this.key(baseUrl), externalId, String(limit))) as [number, number, number];
    return { ok: ok === 1, usage: n, added: added === 1 };
  }

  async release(baseUrl: string, externalId: string): Promise<void> {
    await this.redis.srem(this.key(baseUrl), externalId);
  }

  count(baseUrl: string): Promise<number> {
    return this.redis.scard(this.key(baseUrl));
  }
}
