/**
 * `scim-bridge logs <directory>`: the directory's SCIM request log, newest first (one line per request:
 * time, method, path, status, duration, resource, token, and the scimType and detail of an error), or with
 * `--json` one JSON entry per line (NDJSON, bodies included: for export). `--follow` then prints what
 * arrives, oldest first, checking every second until interrupted.
 */
import type { OpsBackend } from "../backends/ops-backend";
import type { RequestLogEntry } from "../../scim/request-log/request-log-entry";
import type { RequestLogFilters } from "../../scim/request-log/request-log-query";

export interface LogsOptions {
  json: boolean;
  follow: boolean;
  /** Stops a follow (tests; the command runs until interrupted). */
  signal?: AbortSignal;
  pollMs?: number;
}

/** One human-readable line of an entry. */
export function logLine(e: RequestLogEntry): string {
  const resource = [e.resourceType, e.resourceId, e.userName ?? e.displayName].filter(Boolean).join(" ");
  const error = e.status >= 400 ? `  ${[e.scimType, e.detail].filter(Boolean).join(": ")}` : "";
  return `${e.at}  ${e.method.padEnd(6)} ${e.path}  ${e.status}  ${e.durationMs} ms  ${resource || "-"}  [${e.token ?? "-"}] ${e.requestId}${error}`;
}

export async function logsCommand(b: OpsBackend, dir: string, filters: RequestLogFilters, o: LogsOptions, out: (s: string) => void): Promise<void> {
  const show = (e: RequestLogEntry) => out(o.json ? JSON.stringify(e) : logLine(e));
  const page = await b.readRequests(dir, filters);
  // newest first on a listing; a follow prints in the order things happened
  const first = o.follow ? [...page.requests].reverse() : page.requests;
  first.forEach(show);
  if (!o.follow) return;
  let newest = page.requests[0];
  const seen = new Set(page.requests.map((e) => e.id));
  while (!o.signal?.aborted) {
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
    if (o.signal?.aborted) break;
    const since = newest ? String(Date.parse(newest.at)) : undefined;
    const fresh = (await b.readRequests(dir, { ...filters, cursor: undefined, limit: "200", ...(since ? { since } : {}) })).requests
      .filter((e) => !seen.has(e.id)).reverse();
    for (const e of fresh) { seen.add(e.id); show(e); }
    if (fresh.length) newest = fresh[fresh.length - 1];
    if (seen.size > 10_000) { seen.clear(); for (const e of fresh) seen.add(e.id); }
  }
}
