/** Refreshes the gauges read from Redis (queue depth, items by status, external users, paused) before a scrape. */
import type { RequestHandler } from "express";
import type { OpsContext } from "./ops-context";
import { SYNC_STATUSES } from "../store";
import type { Metrics } from "../observability/metrics";

export async function refreshGauges(c: OpsContext, m: Metrics): Promise<void> {
  for (const d of c.registry.enabled()) {
    const q = c.queues.queue(d.id);
    const [counts, items, paused, meta] = await Promise.all([
      q.getJobCounts("waiting", "active", "delayed", "failed", "prioritized"), c.state.counts(d.id), q.isPaused(), c.state.meta(d.id),
    ]);
    for (const [state, n] of Object.entries(counts)) m.queueDepth.set({ directory: d.id, state }, n);
    for (const s of SYNC_STATUSES) m.syncItems.set({ directory: d.id, status: s }, items[s]);
    m.paused.set({ directory: d.id }, paused || meta.paused ? 1 : 0);
    if (d.target === "embed") m.externalUsers.set({ directory: d.id }, await c.usage.count(d.platform.baseUrl));
  }
}

/** Handler for /metrics (Prometheus text format). */
export function metricsHandler(c: OpsContext | undefined, m: Metrics): RequestHandler {
  return async (_req, res) => {
    if (c) await refreshGauges(c, m).catch(() => undefined);
    res.type(m.registry.contentType).send(await m.registry.metrics());
  };
}
