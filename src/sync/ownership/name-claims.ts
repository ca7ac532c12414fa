/**
 * Claims on platform names within one directory: the platform needs unique group names
 * (workforce groups; embed-tenant groups are addressed by name) and an embed external user is addressed
 * by its externalId, while SCIM lets two groups share a displayName (RFC 7643 §4.2: uniqueness "none")
 * and two users share the attribute an embed directory maps to externalId. The first resource to claim a
 * name holds it; another that maps to the same name is refused (its sync fails, naming both) and waits;
 * when the holder lets the name go (renamed, deleted) the waiters are handed back to be reconciled.
 *
 * Keys (P = `<keyPrefix>:{<directoryId>}:`, <space> = "g" for group names, "u" for embed externalIds):
 *   P s:claim:<space>            HASH  lower(name) → id of the resource holding it
 *   P s:claimed:<space>          HASH  id → lower(name) it holds
 *   P s:claim-wait:<space>:<n>   SET   ids refused the name <n> (lower), to reconcile when it is free
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryKeys } from "../../store/keys";
import { defineStoreCommands, type StoreCommands } from "../../store/scripts";

export type ClaimSpace = "g" | "u";

export type ClaimResult = { ok: true; previous?: string } | { ok: false; holder: string };

/** Name claims of every directory. */
export class NameClaims {
  private readonly redis: RedisConnection & StoreCommands;

  constructor(redis: RedisConnection, private readonly keyPrefix: string) {
    this.redis = defineStoreCommands(redis);
  }

  private keys(dir: string, space: ClaimSpace, name = ""): [string, string, string] {
    const p = new DirectoryKeys(this.keyPrefix, dir).prefix;
    return [`${p}s:claim:${space}`, `${p}s:claimed:${space}`, `${p}s:claim-wait:${space}:${name}`];
  }

  /**
   * Claims `name` for `id`; `displace`: a holder known to no longer want it. The name the id held before
   * stays held (so nobody takes it while the platform still carries it) until `letGo`.
   */
  async claim(dir: string, space: ClaimSpace, id: string, name: string, displace = ""): Promise<ClaimResult> {
    const lower = name.toLowerCase();
    const [n, i, w] = this.keys(dir, space, lower);
    const [ok, v] = await this.redis.claimName(n, i, w, id, lower, displace);
    if (!ok) return { ok: false, holder: v };
    return v ? { ok: true, previous: v } : { ok: true };
  }

  /** Lets go of `name` if `id` holds it, or (no name) of the name it holds; resolves with the name let go. */
  async letGo(dir: string, space: ClaimSpace, id: string, name = ""): Promise<string | undefined> {
    const [n, i] = this.keys(dir, space);
    return (await this.redis.letGoName(n, i, id, name.toLowerCase())) || undefined;
  }

  /** The holders of names (lower-cased), in order (undefined where none). */
  async holders(dir: string, space: ClaimSpace, names: string[]): Promise<Array<string | undefined>> {
    if (!names.length) return [];
    return (await this.redis.hmget(this.keys(dir, space)[0], ...names.map((x) => x.toLowerCase()))).map((v) => v ?? undefined);
  }

  /** The ids refused `name` while it was held, forgotten as they are returned (to be reconciled now). */
  async takeWaiters(dir: string, space: ClaimSpace, name: string): Promise<string[]> {
    const w = this.keys(dir, space, name.toLowerCase())[2];
    const [[, ids]] = (await this.redis.multi().smembers(w).del(w).exec()) as [[Error | null, string[]], unknown];
    return ids;
  }
}
