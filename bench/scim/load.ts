/**
 * Closed-loop load generator: N async clients over one undici Pool (one keep-alive connection per
 * client), each sending its next request as soon as the previous answer is read. Latency is measured
 * from sending to the last byte of the body. A run stops issuing at `total` requests or after
 * `durationMs`, lets in-flight requests finish, and aborts whatever is still running at `hardStopMs`
 * (those are reported as abandoned, with their age as a lower bound of their latency).
 */
import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";

/** One request of a run; `tag` groups latencies (e.g. "add" / "remove"). */
export interface LoadRequest {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  body?: string;
  tag?: string;
  /** Caller's own reference (e.g. the user index), handed back to `check`. */
  key?: number;
}

export interface LoadSpec {
  concurrency: number;
  /** Stop issuing after this many requests. */
  total?: number;
  /** Stop issuing after this many ms. */
  durationMs?: number;
  /** Abort requests still in flight this many ms after the start (time-capped runs). */
  hardStopMs?: number;
  /** The `seq`-th request of the run (0-based), sent by client `client`. */
  next(seq: number, client: number, round: number): LoadRequest;
  /** Expected statuses; anything else counts as an error. */
  expect: number[];
  /** Reads the body and checks it (the body is discarded unread when absent). */
  check?(body: string, req: LoadRequest): boolean;
  /** A client answered 429 with Retry-After waits that long before its next request (as Okta and Entra do), within the run's time. */
  honourRetryAfter?: boolean;
}

export interface LoadResult {
  done: number;
  elapsedMs: number;
  /** Completed latencies (ms) by tag ("" when untagged), unsorted. */
  latencies: Map<string, number[]>;
  errors: Map<string, number>;
  abandoned: number;
  /** Ages (ms) of the abandoned requests, by tag. */
  abandonedAges: Map<string, number[]>;
}

const HEADERS_JSON = { "content-type": "application/scim+json" };

/** A Pool of `connections` keep-alive connections to `origin`. */
export function makePool(origin: string, connections: number): Pool {
  return new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Runs one closed-loop load; `auth` is the Authorization header value. */
export async function runLoad(pool: Pool, auth: string, spec: LoadSpec): Promise<LoadResult> {
  const result: LoadResult = { done: 0, elapsedMs: 0, latencies: new Map(), errors: new Map(), abandoned: 0, abandonedAges: new Map() };
  const abort = new AbortController();
  setMaxListeners(4 * spec.concurrency + 16, abort.signal); // undici listens on it per request and per body
  const start = performance.now();
  let issued = 0;
  let lastEnd = start;
  const inFlight = new Map<number, { t0: number; tag: string }>();
  const hardStop = spec.hardStopMs === undefined ? undefined : setTimeout(() => abort.abort(), spec.hardStopMs);
  const more = () => (spec.total === undefined || issued < spec.total) && (spec.durationMs === undefined || performance.now() - start < spec.durationMs) && !abort.signal.aborted;

  const client = async (c: number) => {
    for (let round = 0; more(); round++) {
      const seq = issued++;
      const req = spec.next(seq, c, round);
      const tag = req.tag ?? "";
      const t0 = performance.now();
      inFlight.set(seq, { t0, tag });
      try {
        const res = await pool.request({
          method: req.method, path: req.path, body: req.body, signal: abort.signal,
          headers: { authorization: auth, accept: "application/scim+json", ...(req.body !== undefined ? HEADERS_JSON : {}) },
        });
        let ok = spec.expect.includes(res.statusCode);
        if (spec.check && ok) ok = spec.check(await res.body.text(), req);
        else await res.body.dump({ limit: Infinity });
        const t1 = performance.now();
        inFlight.delete(seq);
        lastEnd = Math.max(lastEnd, t1);
        if (ok) {
          result.done++;
          push(result.latencies, tag, t1 - t0);
        } else {
          const key = `HTTP ${res.statusCode}${spec.expect.includes(res.statusCode) ? " (unexpected body)" : ""}`;
          result.errors.set(key, (result.errors.get(key) ?? 0) + 1);
          const wait = Number(res.headers["retry-after"]) * 1000;
          if (spec.honourRetryAfter && res.statusCode === 429 && wait > 0) {
            const left = spec.durationMs === undefined ? wait : spec.durationMs - (performance.now() - start);
            if (left > 0) await sleep(Math.min(wait, left));
          }
        }
      } catch (err) {
        inFlight.delete(seq);
        if (abort.signal.aborted) {
          result.abandoned++;
          push(result.abandonedAges, tag, performance.now() - t0);
          return;
        }
        const key = (err as Error).name === "Error" ? (err as Error).message : (err as Error).name;
        result.errors.set(key, (result.errors.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, (_, c) => client(c)));
  if (hardStop) clearTimeout(hardStop);
  result.elapsedMs = (abort.signal.aborted ? performance.now() : lastEnd) - start;
  return result;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Summary of one tag of a run: throughput and latency percentiles. */
export interface Summary {
  count: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests abandoned at the hard stop (their latency is at least their age; it is counted in p50/p99). */
  abandoned: number;
  errors: number;
}

/** Summarises the latencies of `tag` (abandoned requests count in the percentiles with their age). */
export function summarise(r: LoadResult, tag = ""): Summary {
  const done = r.latencies.get(tag) ?? [];
  const aged = r.abandonedAges.get(tag) ?? [];
  const all = [...done, ...aged].sort((a, b) => a - b);
  let errors = 0;
  for (const n of r.errors.values()) errors += n;
  return {
    count: done.length,
    rps: done.length / (r.elapsedMs / 1000),
    p50: percentile(all, 50),
    p99: percentile(all, 99),
    max: all.length ? all[all.length - 1] : NaN,
    abandoned: aged.length,
    errors,
  };
}
