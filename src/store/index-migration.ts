/**
 * Start-up migration of the store's indexes: earlier releases kept `externalId` (users and groups) and
 * the group `displayName` in unique hashes (`ix:ux`, `ix:gx`, `ix:gn`: value → id). RFC 7643 gives them no
 * uniqueness (§3.1, §4.2), so they are non-unique sorted sets now (`ix:uxs`, `ix:gxs`, `ix:gns`:
 * "<value>\0<id>"). Each batch moves entries atomically (added to the set, removed from the hash in one
 * script), so the migration loses nothing, can be interrupted, and a second run has nothing to do.
 * Until a directory is migrated, the read and write scripts also consult the old hash.
 */
import type { Redis } from "ioredis";
import { DirectoryKeys } from "./keys";
import { defineStoreCommands } from "./scripts";

const BATCH = 1000;
/** Old hash → new sorted set, as key suffixes under the directory prefix. */
const MOVES: Array<[string, string]> = [["ix:ux", "ix:uxs"], ["ix:gx", "ix:gxs"], ["ix:gn", "ix:gns"]];

/** Migrates one directory; returns the number of index entries moved (0 when already migrated). */
export async function migrateDirectoryIndexes(redis: Redis, keyPrefix: string, directoryId: string): Promise<number> {
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
  return moved;
}

/** Migrates every listed directory (the server role calls this before it listens). */
export async function migrateIndexes(redis: Redis, keyPrefix: string, directoryIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const id of directoryIds) out.set(id, await migrateDirectoryIndexes(redis, keyPrefix, id));
  return out;
}
