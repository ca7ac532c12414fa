/**
 * The platform transport: keep-alive connections from an undici Pool (the process's pool of the origin when
 * given `pools`, src/platform/platform-pools.ts, else one of its own), a connection cap per client (its
 * calls in flight; the only throttle here besides the caller's limiter), one attempt per call, a per-call
 * timeout, and one log line per call with method, path, status, durationMs and requestId. Query strings, bodies and headers are never logged,
 * so keys, tokens and session ids cannot leak.
 *
 * One retry layer: the transport never retries. A failure is classified (TransientError,
 * RateLimitedError, …) and thrown; the sync engine's BullMQ jobs own retries and backoff (src/sync/admission/outcome.ts),
 * and a 429 waits for Retry-After without spending an attempt.
 */
import { randomUUID } from "node:crypto";
import { Pool } from "undici";
import pino from "pino";
import type { Logger } from "../observability/logger";
import type { CallLimiter } from "./call-limiter";
import { errorFromResponse, PlatformError, TransientError } from "./errors";
import { InFlightCap } from "./in-flight-cap";
import type { PlatformPools } from "./platform-pools";
import { parseBaseUrl } from "./secure-base-url";

/** HTTP methods the platform API uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Options of the transport. */
export interface TransportOptions {
  /** The platform `{base_url}`, including `/api`. https, or http on a loopback host. */
  baseUrl: string;
  /** Accept `http://` on a non-loopback host (a simulator in another container). Default false. */
  allowPlainHttp?: boolean;
  /**
   * Timeout of a call, from asking for a connection to the end of the answer's body (undici's own header and
   * body timers tick in ~1 s steps, too coarse for short timeouts). A call that waits for a free connection
   * (maxConnections) spends that wait from it, which is why a directory's concurrency stays ≤ maxConnections.
   * Default 10000.
   */
  timeoutMs?: number;
  /** Connection cap: calls of this client in flight at once; further calls wait their turn. Default 16. */
  maxConnections?: number;
  /** The process's shared pools (one per platform origin); none: the client opens a pool of its own. */
  pools?: PlatformPools;
  /** Asked before each call (the sync engine's shared Redis limiter). Default: none. */
  limiter?: CallLimiter;
  /** Statuses that are message-bearing failures (ValidationError, no retry) even when ≥ 500. */
  messageFailureStatuses?: number[];
  /** Called after every call (metrics); never given secrets. */
  onCall?: (call: PlatformCallInfo) => void;
  logger?: Logger;
  /** Level of the per-call log line. Default "debug"; failures log at "warn". */
  callLogLevel?: "info" | "debug" | "trace";
}

/** One call. */
export interface RequestSpec {
  method: HttpMethod;
  /** Path below `{base_url}`, e.g. `/v1/deployments`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Full `Authorization` header value. */
  authorization: string;
  contentType?: string;
  /** Statuses returned to the caller instead of thrown (e.g. 404 on delete). */
  accept?: number[];
}

/** A successful (or accepted) answer. */
export interface PlatformResponse<T> {
  status: number;
  body: T;
  requestId: string;
}


/** What `onCall` learns of one call. */
export interface PlatformCallInfo {
  method: string;
  /** Path below the base URL, without the query string. */
  path: string;
  /** HTTP status, or 0 when no answer came (timeout, reset). */
  status: number;
  durationMs: number;
  /** The error's message when the call failed (the platform's message, or a timeout / connection text). */
  message?: string;
}

/** The transport every API module uses. */
export class PlatformTransport {
  private readonly pool: Pool;
  private readonly origin: string;
  private readonly cap: InFlightCap;
  private readonly basePath: string;
  private readonly limiter?: CallLimiter;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  /** Told of each call made through this view of the transport (see `observed`); none on the transport itself. */
  private observer?: (call: PlatformCallInfo) => void;

  constructor(private readonly options: TransportOptions) {
    const { origin, basePath } = parseBaseUrl(options.baseUrl, options.allowPlainHttp);
    this.basePath = basePath;
    this.timeoutMs = options.timeoutMs ?? 10000;
    this.origin = origin;
    this.cap = new InFlightCap(options.maxConnections ?? 16);
    this.pool = options.pools?.acquire(origin) ?? new Pool(origin, { connections: this.cap.max, pipelining: 1, keepAliveTimeout: 30_000 });
    this.limiter = options.limiter;
    this.log = options.logger ?? pino({ level: "silent" });
  }

  /** Sends `spec` once; throws a PlatformError subclass on failure (TransientError for timeouts and resets). */
  async request<T>(spec: RequestSpec): Promise<PlatformResponse<T>> {
    const requestId = randomUUID();
    const releaseRate = this.limiter ? await this.limiter.acquire() : undefined;
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let status = 0;
    let releaseSlot: (() => void) | undefined;
    try {
      const headers: Record<string, string> = { authorization: spec.authorization, accept: "application/json, application/scim+json", "x-request-id": requestId };
      let payload: string | undefined;
      if (spec.body !== undefined) {
        payload = JSON.stringify(spec.body);
        headers["content-type"] = spec.contentType ?? "application/json";
      }
      try {
        releaseSlot = await this.cap.acquire(controller.signal);
        const res = await this.pool.request({
          method: spec.method, path: this.basePath + spec.path + queryString(spec.query), headers, body: payload, signal: controller.signal,
          headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs,
        });
        status = res.statusCode;
        const body = parseBody(await res.body.text());
        if ((status >= 200 && status < 300) || spec.accept?.includes(status)) {
          this.logCall(spec, status, started, requestId);
          return { status, body: body as T, requestId };
        }
        throw errorFromResponse(status, body, res.headers, requestId, this.options.messageFailureStatuses);
      } catch (err) {
        if (err instanceof PlatformError) throw err;
        const e = err as { code?: string; message?: string };
        if (controller.signal.aborted || e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT") throw new TransientError(0, `timeout after ${this.timeoutMs} ms`, requestId, "TIMEOUT");
        throw new TransientError(status, `connection failed: ${e.code ?? ""} ${e.message ?? String(err)}`.trim(), requestId, e.code);
      }
    } catch (err) {
      this.logCall(spec, (err as PlatformError).status ?? 0, started, requestId, err as Error);
      throw err;
    } finally {
      clearTimeout(timer);
      releaseSlot?.();
      releaseRate?.();
    }
  }

  /**
   * A view of this transport (the same pool, connection cap, limiter and `onCall`) that also tells `observer`
   * of every call made through it. One client is shared by every reconcile of its directory running at once;
   * the processor gives each reconcile a view of its own, so each call lands in the activity trail of the
   * resource it was made for. (Not an AsyncLocalStorage scope: in Node 20 one enables a hook on every
   * promise the process makes.)
   */
  observed(observer: (call: PlatformCallInfo) => void): PlatformTransport {
    const view = Object.create(this) as PlatformTransport;
    view.observer = observer;
    return view;
  }

  /** Closes pooled connections (a shared pool: with its last client). */
  async close(): Promise<void> {
    if (this.options.pools) await this.options.pools.release(this.origin);
    else await this.pool.close();
  }

  private logCall(spec: RequestSpec, status: number, started: number, requestId: string, err?: Error): void {
    const line = { method: spec.method, path: spec.path, status, durationMs: Math.round(performance.now() - started), requestId };
    const call: PlatformCallInfo = { method: spec.method, path: spec.path, status, durationMs: line.durationMs, ...(err ? { message: err.message } : {}) };
    this.options.onCall?.(call);
    this.observer?.(call);
    if (err) this.log.warn({ ...line, error: err.name, message: err.message }, "platform call failed");
    else this.log[this.options.callLogLevel ?? "debug"](line, "platform call");
  }
}

function queryString(q: RequestSpec["query"]): string {
  if (!q) return "";
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString().replace(/\+/g, "%20");
  return s ? `?${s}` : "";
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
