/**
 * The platform transport: one keep-alive undici Pool per client, a concurrency cap, an optional client-side
 * rate limiter, a per-try timeout, bounded retries (exponential backoff, full jitter) for transient
 * failures only, and one log line per try with method, path, status, durationMs and requestId. Query
 * strings, bodies and headers are never logged, so keys, tokens and session ids cannot leak.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { randomUUID } from "node:crypto";
import { Pool } from "undici";
import pino from "pino";
import type { Logger } from "../observability/logger";
import { DEFAULT_RETRY, fullJitterDelay, type RetryOptions } from "./backoff";
import { errorFromResponse, PlatformError, RateLimitedError, TransientError } from "./errors";
import { RateLimiter, type CallLimiter, type RateLimitOptions } from "./rate-limiter";
import { parseBaseUrl } from "./secure-base-url";
import { Semaphore } from "./semaphore";

/** HTTP methods the platform API uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Options of the transport. */
export interface TransportOptions {
  /** The platform `{base_url}`, including `/api`. https, or http on a loopback host. */
  baseUrl: string;
  /** Accept `http://` on a non-loopback host (a simulator in another container). Default false. */
  allowPlainHttp?: boolean;
  /** Per-try timeout, from sending to the end of the body. Default 10000. */
  timeoutMs?: number;
  /** Calls in flight at once (and pooled connections). Default 16. */
  maxConnections?: number;
  /** Client-side limit, e.g. `{ max: 50, durationMs: 1000 }`. Default: none. */
  rateLimit?: RateLimitOptions;
  /** A limiter to use instead of a local one built from `rateLimit` (e.g. one shared by several processes). */
  limiter?: CallLimiter;
  /** Statuses that are message-bearing failures (ValidationError, no retry) even when ≥ 500. */
  messageFailureStatuses?: number[];
  /** Called after every call (metrics); never given secrets. */
  onCall?: (call: PlatformCallInfo) => void;
  /** Retries of TransientError. Default `{ attempts: 3, baseDelayMs: 200, maxDelayMs: 5000 }`. */
  retry?: Partial<RetryOptions>;
  /** Also retry RateLimitedError after its Retry-After (within `retry.attempts`). Default false. */
  retryRateLimited?: boolean;
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
  /** Which try of this request (1 = first). */
  attempt?: number;
  /** The error's message when the call failed (the platform's message, or a timeout / connection text). */
  message?: string;
}

/** The transport every API module uses. */
export class PlatformTransport {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly slots: Semaphore;
  private readonly limiter?: CallLimiter;
  private readonly retry: RetryOptions;
  private readonly timeoutMs: number;
  private readonly log: Logger;

  constructor(private readonly options: TransportOptions) {
    const { origin, basePath } = parseBaseUrl(options.baseUrl, options.allowPlainHttp);
    this.basePath = basePath;
    this.timeoutMs = options.timeoutMs ?? 10000;
    const connections = options.maxConnections ?? 16;
    this.pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
    this.slots = new Semaphore(connections);
    this.limiter = options.limiter ?? (options.rateLimit ? new RateLimiter(options.rateLimit) : undefined);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.log = options.logger ?? pino({ level: "silent" });
  }

  /** Sends `spec`, retrying as configured; throws a PlatformError subclass on failure. */
  async request<T>(spec: RequestSpec): Promise<PlatformResponse<T>> {
    const requestId = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once<T>(spec, requestId, attempt);
      } catch (err) {
        if (attempt >= this.retry.attempts) throw err;
        if (err instanceof TransientError) await sleep(fullJitterDelay(attempt, this.retry));
        else if (err instanceof RateLimitedError && this.options.retryRateLimited) await sleep(err.retryAfterMs ?? fullJitterDelay(attempt, this.retry));
        else throw err;
      }
    }
  }

  /** Closes pooled connections. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  private async once<T>(spec: RequestSpec, requestId: string, attempt: number): Promise<PlatformResponse<T>> {
    await this.slots.acquire();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const started = performance.now();
    let status = 0;
    let releaseRate: (() => void) | undefined;
    try {
      if (this.limiter) releaseRate = await this.limiter.acquire();
      timer = setTimeout(() => controller.abort(), this.timeoutMs);
      const headers: Record<string, string> = { authorization: spec.authorization, accept: "application/json, application/scim+json", "x-request-id": requestId };
      let payload: string | undefined;
      if (spec.body !== undefined) {
        payload = JSON.stringify(spec.body);
        headers["content-type"] = spec.contentType ?? "application/json";
      }
      let res;
      try {
        res = await this.pool.request({ method: spec.method, path: this.basePath + spec.path + queryString(spec.query), headers, body: payload, signal: controller.signal });
        status = res.statusCode;
        const text = await res.body.text();
        const body = parseBody(text);
        if ((status >= 200 && status < 300) || spec.accept?.includes(status)) {
          this.logCall(spec, status, started, requestId, attempt);
          return { status, body: body as T, requestId };
        }
        throw errorFromResponse(status, body, res.headers, requestId, this.options.messageFailureStatuses);
      } catch (err) {
        if (err instanceof PlatformError) throw err;
        if (controller.signal.aborted) throw new TransientError(0, `timeout after ${this.timeoutMs} ms`, requestId, "TIMEOUT");
        const e = err as { code?: string; message?: string };
        throw new TransientError(status, `connection failed: ${e.code ?? ""} ${e.message ?? String(err)}`.trim(), requestId, e.code);
      }
    } catch (err) {
      this.logCall(spec, (err as PlatformError).status ?? 0, started, requestId, attempt, err as Error);
      throw err;
    } finally {
      clearTimeout(timer);
      releaseRate?.();
      this.slots.release();
    }
  }

  private logCall(spec: RequestSpec, status: number, started: number, requestId: string, attempt: number, err?: Error): void {
    const line = { method: spec.method, path: spec.path, status, durationMs: Math.round(performance.now() - started), requestId, attempt };
    this.options.onCall?.({ method: spec.method, path: spec.path, status, durationMs: line.durationMs, attempt, ...(err ? { message: err.message } : {}) });
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
