/**
 * Reads a group's members in bounded slices, so no Redis call grows with the group: HSCAN over its member
 * hash, MEMBER_SLICE entries per call. A member present for the whole read is yielded exactly once, one
 * added or removed meanwhile at most once: HSCAN returns every element present from start to end at least
 * once (redis.io SCAN guarantees) and may return one twice while the hash resizes, so values already
 * yielded are skipped.
 */
import type { RedisConnection } from "./connection";
import type { MemberRecord } from "./types";

/** Most members one Redis call reads or writes. */
export const MEMBER_SLICE = 1000;

/** A stored member entry (`<U|G><display>`) as a MemberRecord. */
export function memberRecord(value: string, extra: string): MemberRecord {
  const display = extra.slice(1);
  return { value, type: extra[0] === "G" ? "Group" : "User", ...(display ? { display } : {}) };
}

/** The members of the hash at `key`, slice by slice (slices may be empty or shorter than `size`). */
export async function* memberSlices(redis: RedisConnection, key: string, size = MEMBER_SLICE): AsyncGenerator<MemberRecord[]> {
  const seen = new Set<string>();
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(key, cursor, "COUNT", size);
    cursor = next;
    const slice: MemberRecord[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      if (seen.has(flat[i])) continue;
      seen.add(flat[i]);
      slice.push(memberRecord(flat[i], flat[i + 1]));
    }
    yield slice;
  } while (cursor !== "0");
}

/** The members of the set at `key`, read with SSCAN `size` at a time, each once. */
export async function setMembers(redis: RedisConnection, key: string, size = MEMBER_SLICE): Promise<string[]> {
  const out = new Set<string>();
  let cursor = "0";
  do {
    const [next, page] = await redis.sscan(key, cursor, "COUNT", size);
    cursor = next;
    for (const m of page) out.add(m);
  } while (cursor !== "0");
  return [...out];
}

/** The fields and values of the hash at `key`, read with HSCAN `size` at a time. */
export async function hashEntries(redis: RedisConnection, key: string, size = MEMBER_SLICE): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(key, cursor, "COUNT", size);
    cursor = next;
    for (let i = 0; i < flat.length; i += 2) out.set(flat[i], flat[i + 1]);
  } while (cursor !== "0");
  return out;
}
