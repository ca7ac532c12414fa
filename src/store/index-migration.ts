/**
 * Start-up migration of the store's indexes: earlier releases kept `externalId` (users and groups) and
 * the group `displayName` in unique hashes (`ix:ux`, `ix:gx`, `ix:gn`: value → id). RFC 7643 gives them no
 * uniqueness (§3.1, §4.2), so they are non-unique sorted sets now (`ix:uxs`, `ix:gxs`, `ix:gns`:
 * "<value>\0<id>"). Each batch moves entries atomically (added to the set, removed from the hash in one
 * script), so the migration loses nothing, can be interrupted, and a second run has nothing to do.
 * Until a directory is migrated, the read and write scripts also consult the old hash.
 */
import type { RedisConnection } from "./connection";
import { DirectoryKeys } from "./keys";
import { defineStoreCommands } from "./scripts";
import { foldUserName } from "./user-name-fold";

const BATCH = 1000;
/** Old hash → new sorted set, as key suffixes under the directory prefix. */
const MOVES: Array<[string, string]> = [["ix:ux", "ix:uxs"], ["ix:gx", "ix:gxs"], ["ix:gn", "ix:gns"]];

/** Migrates one directory; returns the number of index entries moved (0 when already migrated). */
export async function migrateDirectoryIndexes(redis: RedisConnection, keyPrefix: string, directoryId: string): Promise<number> {
  const r = defineStoreCommands(redis);
  const k = new DirectoryKeys(keyPrefix, directoryId);
  let moved = 0;
  for (const [from, to] of MOVES) {
    let cursor = "0";
    // a full HSCAN pass returns every entry present throughout it; entries an older process wrote during
    // the pass are picked up by the next one (bounded: a hash that never empties is left to the next start)
    for (let pass = 0; pass < 10; pass++) {
      let left = 0;
      do {
        const [next, n, l] = await r.migrateIndex(k.prefix + from, k.prefix + to, cursor, String(BATCH));
        cursor = String(next);
        moved += Number(n);
        left = Number(l);
      } while (cursor !== "0");
      if (left === 0) break;
    }
  }
  return moved + await refoldUserNames(redis, k);
}

/**
 * Re-keys the unique userName index of earlier releases (lower-cased names) to the folded form
 * (user-name-fold.ts): an HSCAN in slices of BATCH, and one script per name whose form changed (only
 * non-ASCII ones). Two existing users whose names fold to one keep their entries; the names are returned
 * for the log.
 */
async function refoldUserNames(redis: RedisConnection, k: DirectoryKeys): Promise<number> {
  const r = defineStoreCommands(redis);
  let cursor = "0";
  let moved = 0;
  do {
    const [next, flat] = await redis.hscan(k.prefix + "ix:un", cursor, "COUNT", BATCH);
    cursor = next;
    for (let i = 0; i < flat.length; i += 2) {
      const folded = foldUserName(flat[i]);
      if (folded === flat[i]) continue;
      const id = flat[i + 1];
      if (Number(await r.refoldUserName(k.prefix + "ix:un", k.prefix + `u:${id}`, k.prefix + "sx:u:un", flat[i], folded, id)) === 1) moved++;
    }
  } while (cursor !== "0");
  return moved;
}

/** Migrates every listed directory (the server role calls this before it listens). */
export async function migrateIndexes(redis: RedisConnection, keyPrefix: string, directoryIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const id of directoryIds) out.set(id, await migrateDirectoryIndexes(redis, keyPrefix, id));
  return out;
}
