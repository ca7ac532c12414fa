/**
 * Sorted pages without a scan: `sortBy` on userName, displayName (users and groups), meta.created and
 * meta.lastModified is answered from sort indexes, whatever the directory's size. Layout in store/keys.ts
 * (`sx:*`): lexicographic sets of "<key>\0<id>" with score 0, so an entry's rank is its place in ascending
 * order (ties by id) and a page is one ZRANGE by rank; meta.created is the creation order itself (the
 * users / groups sets scored by creation sequence, which follows meta.created).
 *
 * Missing values (a user without displayName) are the key "\xff", after every UTF-8 text, and stay last
 * in descending order too, as index pages sort them ([RFC7644§3.4.2.3] leaves their place to the provider).
 * Records older than the indexes are added once per directory, in slices, the first time it is sorted.
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryKeys } from "../../store/keys";
import { defineStoreCommands } from "../../store/scripts";

export type SortKind = "u" | "g";
/** un / dn / m: a sort index; c: creation order. */
export type SortAttr = "un" | "dn" | "m" | "c";
export type SortOrder = "ascending" | "descending";

/** One entry in sort order: its id and its key (null: missing value; the creation sequence for `c`). */
export interface SortEntry { id: string; key: string | null }

const MISSING = Buffer.from([0xff]);
const NUL = Buffer.from([0]);
/** Records added per backfill call. */
const BACKFILL_SLICE = 500;
const FIELDS: Record<SortKind, Array<["un" | "dn" | "m", string]>> = { u: [["un", "un"], ["dn", "n"], ["m", "m"]], g: [["dn", "n"], ["m", "m"]] };

function entryOf(member: Buffer): SortEntry {
  const at = member.indexOf(0);
  const key = member.subarray(0, at);
  return { id: member.subarray(at + 1).toString("utf8"), key: key.equals(MISSING) ? null : key.toString("utf8") };
}

function memberOf(e: SortEntry): Buffer {
  return Buffer.concat([e.key === null ? MISSING : Buffer.from(e.key, "utf8"), NUL, Buffer.from(e.id, "utf8")]);
}

export class SortIndexStore {
  private readonly building = new Map<string, Promise<void>>();
  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {}

  private keys(dir: string): DirectoryKeys { return new DirectoryKeys(this.keyPrefix, dir); }

  /** Resolves once the directory's sort indexes hold every record (one backfill per directory and process). */
  ensure(dir: string): Promise<void> {
    let p = this.building.get(dir);
    if (!p) {
      p = this.backfill(dir).finally(() => this.building.delete(dir));
      this.building.set(dir, p);
    }
    return p;
  }

  private async backfill(dir: string): Promise<void> {
    const k = this.keys(dir);
    if (await this.redis.exists(k.sortReady)) return;
    const r = defineStoreCommands(this.redis);
    for (const kind of ["u", "g"] as const) {
      const indexes = FIELDS[kind].map(([attr]) => k.sortIndex(kind, attr));
      const fields = FIELDS[kind].map(([, field]) => field);
      // by creation sequence, not rank: deletions meanwhile do not shift the walk
      for (let after = "-inf"; ;) {
        const rows = await this.redis.zrangebyscore(kind === "u" ? k.users : k.groups, after, "+inf", "WITHSCORES", "LIMIT", 0, BACKFILL_SLICE);
        if (rows.length === 0) break;
        const ids = rows.filter((_, i) => i % 2 === 0);
        const records = ids.map((id) => (kind === "u" ? k.user(id) : k.group(id)));
        await r.backfillSortIndex(indexes.length + records.length, ...indexes, ...records, String(indexes.length), ...fields, ...ids);
        after = `(${rows[rows.length - 1]}`;
      }
    }
    await this.redis.set(k.sortReady, "1");
  }

  private setOf(dir: string, kind: SortKind, attr: SortAttr): string {
    const k = this.keys(dir);
    return attr === "c" ? (kind === "u" ? k.users : k.groups) : k.sortIndex(kind, attr as "un" | "dn" | "m");
  }

  /** Entries of non-missing keys (the ranks before the missing ones). */
  private async present(key: string): Promise<number> {
    return this.redis.zlexcount(key, "-", Buffer.concat([Buffer.from("("), MISSING]));
  }

  /** `count` entries from place `start` (0-based) in `order`. */
  async page(dir: string, kind: SortKind, attr: SortAttr, order: SortOrder, start: number, count: number): Promise<SortEntry[]> {
    if (count <= 0) return [];
    const key = this.setOf(dir, kind, attr);
    const end = start + count - 1;
    if (attr === "c") {
      const rows = order === "ascending" ? await this.redis.zrange(key, String(start), String(end), "WITHSCORES") : await this.redis.zrevrange(key, String(start), String(end), "WITHSCORES");
      const out: SortEntry[] = [];
      for (let i = 0; i < rows.length; i += 2) out.push({ id: rows[i], key: rows[i + 1] });
      return out;
    }
    if (order === "ascending") return (await this.redis.zrangeBuffer(key, String(start), String(end))).map(entryOf);
    // descending: present keys from the highest down, then the missing ones (by id)
    const n = await this.present(key);
    const out: SortEntry[] = [];
    if (start < n) {
      const last = Math.min(end, n - 1);
      out.push(...(await this.redis.zrangeBuffer(key, String(n - 1 - last), String(n - 1 - start))).reverse().map(entryOf));
    }
    if (end >= n) out.push(...(await this.redis.zrangeBuffer(key, String(Math.max(start, n)), String(end))).map(entryOf));
    return out;
  }

  /** The place (0-based, in `order`) of the first entry after `at`, whether or not `at` still exists. */
  async after(dir: string, kind: SortKind, attr: SortAttr, order: SortOrder, at: SortEntry): Promise<number> {
    const key = this.setOf(dir, kind, attr);
    if (attr === "c") return order === "ascending" ? this.redis.zcount(key, "-inf", at.key!) : this.redis.zcount(key, at.key!, "+inf");
    const incl = Buffer.concat([Buffer.from("["), memberOf(at)]);
    if (order === "ascending" || at.key === null) return this.redis.zlexcount(key, "-", incl);
    return (await this.present(key)) - (await this.redis.zlexcount(key, "-", Buffer.concat([Buffer.from("("), memberOf(at)])));
  }
}
