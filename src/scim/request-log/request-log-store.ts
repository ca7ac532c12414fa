/**
 * A directory's SCIM request log in Redis (keys: request-log-keys.ts). Appends go through one script that
 * also trims the oldest entries past the directory's age and size bounds (commands/appendRequestLog-2.lua);
 * reads page newest first through bounded slices of the stream (a filter that matches little reads at most
 * MAX_SCANNED entries per call and hands back a cursor to go on from).
 */
import type { RedisConnection } from "../../store";
import { defineStoreCommands } from "../../store/scripts";
import { RequestLogKeys } from "./request-log-keys";
import { serializeEntry, type NewRequestLogEntry, type RequestLogEntry } from "./request-log-entry";

/** Bounds of one directory's log. */
export interface RequestLogLimits {
  maxAgeDays: number;
  maxMegabytes: number;
}

/** Entries trimmed by one append at most (each append adds one, so the log converges to its bounds). */
const TRIM_PER_APPEND = 50;
/** Entries read by one slice of a read, and by one read call at most. */
const SLICE = 200;
const MAX_SCANNED = 1000;
const DAY_MS = 86_400_000;

/** A page of entries, newest first; `next` goes on after the last one (null: nothing older). */
export interface RequestLogPage {
  requests: RequestLogEntry[];
  next: string | null;
}

export interface RequestLogQuery {
  /** Entries older than this entry id (a page's `next`). */
  before?: string;
  /** Time bounds, ms since the epoch. */
  since?: number;
  until?: number;
  limit: number;
  match?: (e: RequestLogEntry) => boolean;
}

const STREAM_ID = /^\d{1,15}-\d{1,15}$/;

export class RequestLogStore {
  private readonly keys: RequestLogKeys;
  constructor(private readonly redis: RedisConnection, keyPrefix: string) {
    this.keys = new RequestLogKeys(keyPrefix);
  }

  /** Appends `entry` (without its id) and trims; resolves with the new entry's id. */
  append(dir: string, entry: NewRequestLogEntry, limits: RequestLogLimits, now = Date.now()): Promise<string> {
    return this.appendMany(dir, [entry], limits, now);
  }

  /** Appends entries in one call (oldest first) and trims; resolves with the last entry's id. */
  async appendMany(dir: string, entries: NewRequestLogEntry[], limits: RequestLogLimits, now = Date.now()): Promise<string> {
    const maxAgeMs = limits.maxAgeDays * DAY_MS;
    const args = [String(Math.floor(limits.maxMegabytes * 1024 * 1024)), String(now - maxAgeMs),
      String(TRIM_PER_APPEND * entries.length), String(Math.ceil(maxAgeMs))];
    for (const entry of entries) {
      const json = serializeEntry(entry);
      // the entry's JSON and the stream's own bookkeeping of it (id, field names, request id, size)
      args.push(json, entry.requestId ?? "", String(Buffer.byteLength(json) + 64));
    }
    return defineStoreCommands(this.redis).appendRequestLog(this.keys.log(dir), this.keys.index(dir), ...args);
  }

  /** The entry of request `requestId`, if still kept. */
  async byRequestId(dir: string, requestId: string): Promise<RequestLogEntry | undefined> {
    const id = await this.redis.hget(this.keys.index(dir), requestId);
    if (!id || !STREAM_ID.test(id)) return undefined;
    const [found] = await this.redis.xrange(this.keys.log(dir), id, id);
    return found ? parse(found) : undefined;
  }

  /** Entries newest first, filtered, at most `limit`, reading at most MAX_SCANNED entries. */
  async page(dir: string, q: RequestLogQuery): Promise<RequestLogPage> {
    const key = this.keys.log(dir);
    const requests: RequestLogEntry[] = [];
    let end = q.before && STREAM_ID.test(q.before) ? `(${q.before}` : q.until !== undefined ? String(q.until) : "+";
    const start = q.since !== undefined ? String(q.since) : "-";
    let scanned = 0;
    while (scanned < MAX_SCANNED) {
      const slice = await this.redis.xrevrange(key, end, start, "COUNT", Math.min(SLICE, MAX_SCANNED - scanned));
      scanned += slice.length;
      for (const [i, raw] of slice.entries()) {
        const e = parse(raw);
        if (!e || (q.match && !q.match(e))) continue;
        requests.push(e);
        if (requests.length === q.limit) {
          // more may follow unless this was the slice's last and the slice was short
          const last = i === slice.length - 1 && slice.length < SLICE;
          return { requests, next: last ? null : e.id };
        }
      }
      if (slice.length < SLICE) return { requests, next: null };
      end = `(${slice[slice.length - 1][0]}`;
    }
    return { requests, next: end.slice(1) };
  }
}

function parse([id, fields]: [string, string[]]): RequestLogEntry | undefined {
  for (let i = 0; i < fields.length; i += 2) {
    if (fields[i] !== "d") continue;
    try {
      return { id, ...(JSON.parse(fields[i + 1]) as Omit<RequestLogEntry, "id">) };
    } catch {
      return undefined;
    }
  }
  return undefined;
}
