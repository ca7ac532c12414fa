/**
 * The filters of a request-log read, as the admin API's query string and the CLI's flags give them:
 *   status    "401", "4xx", "5xx", "2xx", … (an exact status or a class)
 *   method    GET, POST, PUT, PATCH, DELETE
 *   resource  a resource id or a userName / displayName (exact, userName case-insensitively)
 *   since, until  ISO 8601 times (or ms since the epoch)
 *   q         text anywhere in the entry (bodies included), case-insensitive
 *   limit     1–200 (default 50);  cursor  a page's `next`
 * A filter that cannot be read is refused with its name and what it expects (nothing is guessed).
 */
import type { RequestLogEntry } from "./request-log-entry";
import type { RequestLogQuery } from "./request-log-store";

export type RequestLogFilters = Partial<Record<"status" | "method" | "resource" | "since" | "until" | "q" | "limit" | "cursor", string>>;

export class RequestLogFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

function time(name: string, v: string | undefined): number | undefined {
  if (v === undefined || v === "") return undefined;
  const ms = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (!Number.isFinite(ms)) throw new RequestLogFilterError(`${name} must be an ISO 8601 time (2026-11-28T12:00:00Z) or milliseconds since the epoch`);
  return ms;
}

/** The store query of these filters. */
export function requestLogQuery(f: RequestLogFilters): RequestLogQuery {
  const checks: Array<(e: RequestLogEntry) => boolean> = [];
  if (f.status) {
    const m = /^([1-5])(?:xx|XX)$|^([1-5]\d\d)$/.exec(f.status);
    if (!m) throw new RequestLogFilterError("status must be a status (401) or a class (4xx, 5xx)");
    if (m[1]) { const c = Number(m[1]); checks.push((e) => Math.floor(e.status / 100) === c); } else { const s = Number(m[2]); checks.push((e) => e.status === s); }
  }
  if (f.method) {
    const method = f.method.toUpperCase();
    if (!/^[A-Z]{3,7}$/.test(method)) throw new RequestLogFilterError("method must be an HTTP method (GET, POST, PUT, PATCH, DELETE)");
    checks.push((e) => e.method === method);
  }
  if (f.resource) {
    const r = f.resource;
    const lower = r.toLowerCase();
    checks.push((e) => e.resourceId === r || e.userName?.toLowerCase() === lower || e.displayName === r);
  }
  if (f.q) {
    const q = f.q.toLowerCase();
    checks.push((e) => JSON.stringify(e).toLowerCase().includes(q));
  }
  const limit = f.limit === undefined || f.limit === "" ? 50 : Number(f.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw new RequestLogFilterError("limit must be a whole number from 1 to 200");
  if (f.cursor !== undefined && f.cursor !== "" && !/^\d{1,15}-\d{1,15}$/.test(f.cursor)) throw new RequestLogFilterError("cursor must be a page's `next`");
  return {
    limit, since: time("since", f.since), until: time("until", f.until), ...(f.cursor ? { before: f.cursor } : {}),
    ...(checks.length ? { match: (e) => checks.every((c) => c(e)) } : {}),
  };
}
