/**
 * Fault injection for `/api` requests: outage window, dropped connections, a per-key sliding-window rate
 * limit (429 + `Retry-After` seconds), injected 5xx and latency, in that order. Settable from the config at
 * start and replaced at runtime by `PUT /_sim/faults`.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createHash } from "node:crypto";
import type { Request, RequestHandler } from "express";
import type { Counters } from "./counters";
import { faultsSchema, type FaultSettings, type FaultsInput } from "./faults-schema";

/** Active fault settings, with the outage resolved to an absolute end time. */
export interface ActiveFaults extends Omit<FaultSettings, "outage"> {
  outage: { untilMs: number; mode: "503" | "drop"; retryAfterSeconds?: number } | null;
}


/** Holds the settings and the per-key request logs of the rate limit. */
export class FaultInjector {
  private active!: ActiveFaults;
  /** key → ring of the last `max` arrival times. */
  private windows = new Map<string, { times: number[]; next: number }>();

  constructor(
    initial: FaultsInput,
    private readonly counters: Counters,
  ) {
    this.set(initial);
  }

  /** Replaces every setting (validated with `faultsSchema`; throws a ZodError on bad input). */
  set(input: FaultsInput): ActiveFaults {
    const f = faultsSchema.parse(input);
    const o = f.outage;
    const untilMs = o ? (o.forSeconds !== undefined ? Date.now() + o.forSeconds * 1000 : typeof o.until === "number" ? o.until : Date.parse(o.until!)) : 0;
    this.active = { ...f, outage: o ? { untilMs, mode: o.mode, retryAfterSeconds: o.retryAfterSeconds } : null };
    this.windows.clear();
    return this.get();
  }

  /** Current settings. */
  get(): ActiveFaults {
    return structuredClone(this.active);
  }

  /** Express middleware applying the faults. */
  middleware(): RequestHandler {
    return async (req, res, next) => {
      const f = this.active;
      if (f.outage && Date.now() < f.outage.untilMs) {
        this.counters.fault("outage");
        if (f.outage.mode === "drop") return void req.socket.destroy();
        if (f.outage.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(f.outage.retryAfterSeconds));
        return void res.status(503).json({ error: "service unavailable (simulated outage)" });
      }
      if (f.drop.next > 0 || (f.drop.rate > 0 && Math.random() < f.drop.rate)) {
        if (f.drop.next > 0) f.drop.next--;
        this.counters.fault("dropped");
        return void req.socket.destroy();
      }
      if (f.rateLimit) {
        const waitMs = this.admit(clientKey(req), f.rateLimit.max, f.rateLimit.durationMs);
        if (waitMs > 0) {
          this.counters.fault("rateLimited");
          const seconds = f.rateLimit.retryAfterSeconds ?? Math.max(1, Math.ceil(waitMs / 1000));
          const date = new Date(Math.ceil((Date.now() + seconds * 1000) / 1000) * 1000).toUTCString();
          res.setHeader("Retry-After", f.rateLimit.retryAfterFormat === "http-date" ? date : String(seconds));
          return void res.status(429).json({ error: "rate limit exceeded" });
        }
      }
      if (f.errors.next > 0 || (f.errors.rate > 0 && Math.random() < f.errors.rate)) {
        if (f.errors.next > 0) f.errors.next--;
        this.counters.fault("errors");
        const status = f.errors.statuses[Math.floor(Math.random() * f.errors.statuses.length)];
        return void res.status(status).json({ error: `simulated ${status}` });
      }
      const delay = f.latency.fixedMs + (f.latency.jitterMs ? Math.random() * f.latency.jitterMs : 0);
      if (delay > 0) await sleep(delay);
      next();
    };
  }

  /** Sliding-window log: 0 when admitted, else ms until the oldest request of the window leaves it. */
  private admit(key: string, max: number, durationMs: number): number {
    let w = this.windows.get(key);
    if (!w || w.times.length !== max) this.windows.set(key, (w = { times: new Array<number>(max).fill(-Infinity), next: 0 }));
    const now = performance.now();
    const oldest = w.times[w.next];
    if (now - oldest < durationMs) return oldest + durationMs - now;
    w.times[w.next] = now;
    w.next = (w.next + 1) % max;
    return 0;
  }
}

/** Rate-limit bucket of a request: a hash of its credential, or its address when it sends none. */
function clientKey(req: Request): string {
  const auth = req.headers.authorization;
  if (!auth) return `ip:${req.socket.remoteAddress ?? "?"}`;
  return createHash("sha256").update(auth.replace(/^\S+\s+/, "")).digest("hex").slice(0, 16);
}
