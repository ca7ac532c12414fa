/**
 * /healthz (the process answers) and /readyz (this process can do its job), per role (a
 * server is ready when it can serve SCIM, that is Redis answers; a worker when it can take jobs):
 *   - server: Redis answers;
 *   - worker: Redis answers and this process's sync workers run (started, not closing);
 *   - all: both.
 * A directory's platform trouble is no reason to take a process out of rotation: per-directory platform
 * health lives in the admin API, the status page and /metrics. A worker that does not serve some enabled
 * directories (their platform key variable is not set in this process) stays ready for the others and
 * says how many in `notServed` (their ids and reasons are in its log). Both endpoints are unauthenticated, so
 * they say which check failed in one word and reveal no directory id and no error text.
 */
import type { RequestHandler } from "express";

export type Role = "server" | "worker" | "all";

/** The one Redis command readiness needs. */
export interface RedisPing { redis: { ping(): Promise<unknown> } }

/** What a process knows of its own readiness beyond Redis: set by the worker role once its runtime runs. */
export class RoleProbe {
  private jobs?: () => boolean;
  private unserved?: () => number;
  constructor(readonly role: Role) {}

  /**
   * The worker runtime is up: `canTakeJobs` says whether its workers still run, `notServed` how many
   * enabled directories this process does not serve (no platform key variable here).
   */
  attachWorkers(canTakeJobs: () => boolean, notServed?: () => number): void {
    this.jobs = canTakeJobs;
    this.unserved = notServed;
  }

  /** Enabled directories this process does not serve (undefined: none, or no worker runtime). */
  notServed(): number | undefined {
    const n = this.unserved?.() ?? 0;
    return n > 0 ? n : undefined;
  }

  /** "ok", "starting" (no runtime yet) or "stopped"; undefined for a server-only process. */
  jobsCheck(): "ok" | "starting" | "stopped" | undefined {
    if (this.role === "server") return undefined;
    if (!this.jobs) return "starting";
    return this.jobs() ? "ok" : "stopped";
  }
}

export interface Readiness {
  status: "ready" | "not ready";
  checks: { redis: "ok" | "unreachable"; jobs?: "ok" | "starting" | "stopped"; notServed?: number };
}

/** Runs the readiness checks of this process. */
export async function readiness(c: RedisPing, probe: RoleProbe, timeoutMs = 1000): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error("timeout")), timeoutMs); timer.unref(); });
  let redis: Readiness["checks"]["redis"] = "ok";
  try {
    await Promise.race([c.redis.ping(), timeout]);
  } catch {
    // unauthenticated endpoint: say what is wrong, not the driver's error text
    redis = "unreachable";
  } finally {
    clearTimeout(timer);
  }
  const jobs = probe.jobsCheck();
  const ok = redis === "ok" && (jobs === undefined || jobs === "ok");
  const notServed = probe.notServed();
  return { status: ok ? "ready" : "not ready", checks: { redis, ...(jobs ? { jobs } : {}), ...(notServed ? { notServed } : {}) } };
}

export const healthz: RequestHandler = (_req, res) => { res.json({ status: "ok" }); };

/** Handler for /readyz. */
export function readyz(c: RedisPing, probe: RoleProbe): RequestHandler {
  return async (_req, res) => {
    const r = await readiness(c, probe);
    res.status(r.status === "ready" ? 200 : 503).json(r);
  };
}
