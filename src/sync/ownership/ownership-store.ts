/**
 * Which directory manages each platform resource. Directories pointed at one platform
 * account (the same account identity, src/accounts/account-identity.ts: two IdPs of one company, a move from Okta to Entra) would
 * otherwise adopt each other's same-named users and groups, and one directory's resync could deprovision
 * what the other manages. The first directory to create or adopt a resource owns it; another never
 * adopts, changes or deprovisions it (its item fails naming the owner) until an operator hands it over.
 *
 * Keys (account-wide, like the external-user count; A = `<keyPrefix>:acct:<sha1(account)>:`, AccountKeys):
 *   A owner:<space>   HASH  resource key → directory id
 * where <space> is "u" (workforce platform user id), "g" (workforce platform group id), "eu" (embed
 * externalId: external users are account-wide) or "eg:<tenant>" (embed-tenant group name, lower-cased).
 */
import { AccountKeys } from "../../accounts/account-keys";
import type { RedisConnection } from "../../store/connection";
import { defineStoreCommands, type StoreCommands } from "../../store/scripts";

export type OwnerSpace = "u" | "g" | "eu" | `eg:${string}`;

/** Owners of platform resources, per platform account. */
export class Ownership {
  private readonly keys: AccountKeys;
  private readonly redis: RedisConnection & StoreCommands;

  constructor(redis: RedisConnection, keyPrefix: string) {
    this.keys = new AccountKeys(keyPrefix);
    this.redis = defineStoreCommands(redis);
  }

  key(baseUrl: string, space: OwnerSpace): string {
    return this.keys.owners(baseUrl, space);
  }

  /** The owner of a resource, taking it for `dir` when nobody owns it. */
  async claim(baseUrl: string, space: OwnerSpace, resource: string, dir: string): Promise<string> {
    return this.redis.claimOwner(this.key(baseUrl, space), resource, dir);
  }

  /** Owners of many resources, in order (undefined where none). */
  async owners(baseUrl: string, space: OwnerSpace, resources: string[]): Promise<Array<string | undefined>> {
    if (!resources.length) return [];
    return (await this.redis.hmget(this.key(baseUrl, space), ...resources)).map((v) => v ?? undefined);
  }

  /** Forgets the owner of a resource that is gone, if `dir` owns it. */
  async forget(baseUrl: string, space: OwnerSpace, resource: string, dir: string): Promise<void> {
    await this.redis.forgetOwner(this.key(baseUrl, space), resource, dir);
  }

  /** Records `dir` as the owner of a resource it just created (a created resource is its creator's). */
  async record(baseUrl: string, space: OwnerSpace, resource: string, dir: string): Promise<void> {
    await this.redis.hset(this.key(baseUrl, space), resource, dir);
  }

  /**
   * Hands a resource to `to` (only from `from` when given; commands/handOverOwner-1.lua). `missing`: no
   * directory manages it, and nothing was written.
   */
  async handOver(baseUrl: string, space: OwnerSpace, resource: string, to: string, from = ""): Promise<{ ok: boolean; owner?: string; missing?: boolean }> {
    const [ok, v] = await this.redis.handOverOwner(this.key(baseUrl, space), resource, to, from);
    return { ok: ok === 1, owner: v || undefined, ...(ok === -1 ? { missing: true } : {}) };
  }
}
