/**
 * Prometheus metrics (prom-client). One registry per process; the server serves it at /metrics and a
 * worker-only process on its own port (`metrics.port`). Families:
 *   scim_requests_total{directory,method,status}         counter
 *   scim_request_duration_seconds{directory,method}       histogram
 *   sync_jobs_total{directory,kind,outcome}               counter (outcome: created|updated|…|failed|retry)
 *   sync_job_duration_seconds{directory,kind}             histogram
 *   platform_calls_total{directory,endpoint,status}       counter
 *   platform_call_duration_seconds{directory,endpoint}    histogram
 *   sync_queue_depth{directory,state}                     gauge, read at scrape: state waiting (the directory's
 *                                                         backlog) or admitted (in its queue shard, not finished)
 *   sync_items{directory,status}                          gauge, read from the sync state at scrape
 *   external_users{directory}                             gauge (embed directories), at scrape
 *   directory_paused{directory}                           gauge 1/0, at scrape
 *   platform_healthy{directory}                           gauge 1/0: the platform key last verified, or the last call
 *                                                         succeeded (re-verified periodically), at scrape
 *   deprovisions_held{directory,source}                   gauge, at scrape: deprovisions waiting for an operator —
 *                                                         source "resync" (a resync's safeguard held them) or
 *                                                         "brake" (the directory's deprovision brake held them)
 * Without `metrics.tokenHashes` /metrics is unauthenticated and every `directory` label is an opaque
 * label (`src/observability/directory-labels.ts`; the admin API shows each directory's); with them it asks for a
 * token and shows the directory ids.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface Metrics {
  registry: Registry;
  scimRequests: Counter<"directory" | "method" | "status">;
  scimDuration: Histogram<"directory" | "method">;
  syncJobs: Counter<"directory" | "kind" | "outcome">;
  syncJobDuration: Histogram<"directory" | "kind">;
  platformCalls: Counter<"directory" | "endpoint" | "status">;
  platformDuration: Histogram<"directory" | "endpoint">;
  queueDepth: Gauge<"directory" | "state">;
  syncItems: Gauge<"directory" | "status">;
  externalUsers: Gauge<"directory">;
  paused: Gauge<"directory">;
  platformHealthy: Gauge<"directory">;
  platformUnreachableSince: Gauge<"directory">;
  oldestWaiting: Gauge<"directory">;
  deprovisionsHeld: Gauge<"directory" | "source">;
}

/** `METHOD /path` with ids replaced, so the label has a bounded number of values. */
export function endpointLabel(method: string, path: string): string {
  const p = path
    .replace(/\/(Users|Groups)\/[^/?]+/g, "/$1/:id")
    .replace(/\/embed-tenants\/[^/]+/g, "/embed-tenants/:tenant")
    .replace(/\/groups\/[^/]+/g, "/groups/:id");
  return `${method} ${p}`;
}

/** Creates the registry and every family (default Node metrics included). */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const r = [registry];
  return {
    registry,
    scimRequests: new Counter({ name: "scim_requests_total", help: "SCIM requests by directory, method and status", labelNames: ["directory", "method", "status"], registers: r }),
    scimDuration: new Histogram({ name: "scim_request_duration_seconds", help: "SCIM request latency", labelNames: ["directory", "method"], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: r }),
    syncJobs: new Counter({ name: "sync_jobs_total", help: "Reconcile jobs by outcome", labelNames: ["directory", "kind", "outcome"], registers: r }),
    syncJobDuration: new Histogram({ name: "sync_job_duration_seconds", help: "Reconcile job duration", labelNames: ["directory", "kind"], buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30], registers: r }),
    platformCalls: new Counter({ name: "platform_calls_total", help: "Platform API calls by endpoint and status (0 = no answer)", labelNames: ["directory", "endpoint", "status"], registers: r }),
    platformDuration: new Histogram({ name: "platform_call_duration_seconds", help: "Platform API call latency", labelNames: ["directory", "endpoint"], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10], registers: r }),
    queueDepth: new Gauge({ name: "sync_queue_depth", help: "Reconcile jobs per directory and state", labelNames: ["directory", "state"], registers: r }),
    syncItems: new Gauge({ name: "sync_items", help: "Resources per directory and sync status", labelNames: ["directory", "status"], registers: r }),
    externalUsers: new Gauge({ name: "external_users", help: "External users provisioned on the directory's platform account (embed)", labelNames: ["directory"], registers: r }),
    paused: new Gauge({ name: "directory_paused", help: "1 while a directory's sync is paused (e.g. platform 401)", labelNames: ["directory"], registers: r }),
    platformHealthy: new Gauge({ name: "platform_healthy", help: "1 while a directory's platform key works (verified, or the last call succeeded)", labelNames: ["directory"], registers: r }),
    platformUnreachableSince: new Gauge({ name: "platform_unreachable_since_seconds", help: "Unix time of the first unanswered platform call (no answer or 5xx) since the last success; 0 while the platform answers", labelNames: ["directory"], registers: r }),
    oldestWaiting: new Gauge({ name: "sync_oldest_waiting_seconds", help: "Age of the oldest change that waits to be applied (outbox, backlog or running); 0 when nothing waits", labelNames: ["directory"], registers: r }),
    deprovisionsHeld: new Gauge({ name: "deprovisions_held", help: "Deprovisions held for an operator's confirmation, by what held them (resync, brake)", labelNames: ["directory", "source"], registers: r }),
  };
}
