/**
 * Finding users and groups of a directory by name for the status page: userName (the `ix:un` index)
 * and displayName (users: `ix:udn`, groups: `ix:gns`; layout in keys.ts), case-insensitive substring, at most `limit` hits.
 * The indexes are walked with HSCAN / ZSCAN and a MATCH pattern, never KEYS.
 */
import type { RedisConnection } from "./connection";
import { DirectoryKeys } from "./keys";

export interface NameHit {
  kind: "user" | "group";
  id: string;
  /** The indexed (lower-case) name that matched. */
  name: string;
}

/** Escapes Redis glob characters. */
function glob(s: string): string {
  return s.replace(/[*?[\]\\^]/g, (c) => `\\${c}`);
}

async function scanHash(redis: RedisConnection, key: string, pattern: string, limit: number): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(key, cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    for (let i = 0; i + 1 < flat.length && out.length < limit; i += 2) out.push([flat[i], flat[i + 1]]);
  } while (cursor !== "0" && out.length < limit);
  return out;
}

async function scanZset(redis: RedisConnection, key: string, pattern: string, limit: number): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, flat] = await redis.zscan(key, cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    for (let i = 0; i < flat.length && out.length < limit; i += 2) out.push(flat[i]);
  } while (cursor !== "0" && out.length < limit);
  return out;
}

/** Users and groups whose userName or displayName contains `q` (case-insensitive). */
export async function searchByName(redis: RedisConnection, keyPrefix: string, dir: string, q: string, limit = 50): Promise<NameHit[]> {
  const p = new DirectoryKeys(keyPrefix, dir).prefix;
  const needle = `*${glob(q.trim().toLowerCase())}*`;
  const hits = new Map<string, NameHit>();
  for (const [name, id] of await scanHash(redis, `${p}ix:un`, needle, limit)) hits.set(`u${id}`, { kind: "user", id, name });
  for (const member of await scanZset(redis, `${p}ix:udn`, needle, limit)) {
    const [name, id] = member.split("\0");
    if (id && !hits.has(`u${id}`)) hits.set(`u${id}`, { kind: "user", id, name });
  }
  for (const member of await scanZset(redis, `${p}ix:gns`, needle, limit)) {
    const [name, id] = member.split("\0");
    if (id) hits.set(`g${id}`, { kind: "group", id, name });
  }
  return [...hits.values()].slice(0, limit);
}
