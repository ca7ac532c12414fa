/**
 * /healthz (the process answers) and /readyz (it can do its job): Redis reachable, at least one worker
 * attached to every enabled directory's queue, and every directory's platform key verified (as the workers last
 * recorded it). 503 with the failing checks otherwise.
 */
import type { RequestHandler } from "express";
import type { OpsContext } from "./ops-context";

export interface Readiness {
  status: "ready" | "not ready";
  checks: { redis: string; workers: Record<string, number>; platformKey: Record<string, string> };
}

/** Runs the readiness checks. */
export async function readiness(c: OpsContext, timeoutMs = 1000): Promise<Readiness> {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref());
  let redis = "ok";
  try {
    await Promise.race([c.redis.ping(), timeout]);
  } catch {
    // unauthenticated endpoint: say what is wrong, not the driver's error text
    redis = "unreachable";
  }
  const workers: Record<string, number> = {};
  const platformKey: Record<string, string> = {};
  if (redis === "ok") {
    for (const d of c.registry.enabled()) {
      workers[d.id] = await c.queues.queue(d.id).getWorkersCount().catch(() => 0);
      platformKey[d.id] = (await c.state.meta(d.id)).keyStatus ?? "unchecked";
    }
  }
  const ok = redis === "ok" && Object.values(workers).every((n) => n > 0) && Object.values(platformKey).every((s) => s === "ok");
  return { status: ok ? "ready" : "not ready", checks: { redis, workers, platformKey } };
}

export const healthz: RequestHandler = (_req, res) => { res.json({ status: "ok" }); };

/** Handler for /readyz. */
export function readyz(c: OpsContext): RequestHandler {
  return async (_req, res) => {
    const r = await readiness(c);
    res.status(r.status === "ready" ? 200 : 503).json(r);
  };
}
