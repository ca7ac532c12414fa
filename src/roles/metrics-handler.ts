/**
 * /metrics: refreshes the gauges read from Redis (queue depth, items by status, external users, paused,
 * platform health, platform unreachable since, age of the oldest waiting change, deprovisions held) before a scrape. With `metrics.tokenHashes` it asks for one of those tokens and labels
 * by directory id; without, it is open and every directory id is replaced by its opaque label.
 */
import type { RequestHandler } from "express";
import type { OpsContext } from "../admin/ops-context";
import { metricsSaltKey } from "../store";
import { SYNC_STATUSES } from "../sync/state/sync-state";
import type { Metrics } from "../observability/metrics";
import { metricsAuth } from "../auth/metrics-auth";
import { DirectoryLabels } from "../observability/directory-labels";
import { platformHealthy } from "../sync/control/platform-health";
import { heldByBrake } from "../sync/brake/brake";
import { oldestWaiting } from "../sync/waiting/waiting";

export async function refreshGauges(c: OpsContext, m: Metrics): Promise<void> {
  for (const d of c.registry.enabled()) {
    const [depth, items, meta, resync] = await Promise.all([c.queues.depth(d.id), c.state.counts(d.id), c.state.meta(d.id), c.resyncs.progress(d.id)]);
    // per directory: "waiting" in its backlog (not admitted yet) and "admitted" into its shard, not finished
    m.queueDepth.set({ directory: d.id, state: "waiting" }, depth.backlog);
    m.queueDepth.set({ directory: d.id, state: "admitted" }, depth.admitted);
    for (const s of SYNC_STATUSES) m.syncItems.set({ directory: d.id, status: s }, items[s]);
    m.paused.set({ directory: d.id }, meta.paused ? 1 : 0);
    m.platformHealthy.set({ directory: d.id }, platformHealthy(meta.keyStatus) && !meta.unreachableSince ? 1 : 0);
    m.platformUnreachableSince.set({ directory: d.id }, meta.unreachableSince ? Math.floor(Date.parse(meta.unreachableSince) / 1000) : 0);
    m.oldestWaiting.set({ directory: d.id }, (await oldestWaiting(c.redis, c.config.redis.keyPrefix, d.id, meta.pausedAt)).ageMs / 1000);
    m.deprovisionsHeld.set({ directory: d.id, source: "resync" }, resync.status === "awaiting-confirmation" ? resync.held : 0);
    m.deprovisionsHeld.set({ directory: d.id, source: "brake" }, await heldByBrake(c.redis, c.config.redis.keyPrefix, d.id));
    if (d.target === "embed") m.externalUsers.set({ directory: d.id }, await c.usage.count(d.platform.baseUrl));
  }
}

/** Handler for /metrics (Prometheus text format). */
export function metricsHandler(c: OpsContext | undefined, m: Metrics): RequestHandler {
  const auth = metricsAuth(c?.config.metrics.tokenHashes ?? []);
  const labels = c ? new DirectoryLabels(c.redis, metricsSaltKey(c.config.redis.keyPrefix)) : undefined;
  return async (req, res) => {
    if (!auth.allow(req, res)) return;
    if (c) await refreshGauges(c, m).catch(() => undefined);
    let text = await m.registry.metrics();
    if (!auth.required && c && labels) {
      try {
        text = await labels.rewrite(text, c.registry.list().map((e) => e.dir.id));
      } catch {
        // no salt (Redis unreachable): no per-directory series rather than the ids
        text = text.split("\n").filter((l) => !/directory="/.test(l) || /directory="unauthenticated"/.test(l)).join("\n");
      }
    }
    res.type(m.registry.contentType).send(text);
  };
}
