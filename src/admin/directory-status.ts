/**
 * The state of a directory's sync as an operator wants it in seconds: counts by sync status, queue depth,
 * last successful sync, why it is paused, external-user usage against the account limit, the latest
 * resync, whether the platform answers, the age of the oldest change that waits, and one word for the whole
 * (in sync / syncing / failing / paused / platform unreachable). Read from Redis only (no queue client),
 * so `scim-bridge status` answers without loading BullMQ.
 */
import type { Config } from "../config/schema";
import { metricsSaltKey } from "../store/keys";
import { type SyncKind, type SyncStatus } from "../sync/state/sync-state";
import type { ResyncProgress } from "../sync/resync/resync";
import type { OpsContext } from "./ops-context";
import { DirectoryLabels } from "../observability/directory-labels";
import { platformHealthy } from "../sync/control/platform-health";
import { oldestWaiting } from "../sync/waiting/waiting";

export type Health = "in sync" | "syncing" | "failing" | "paused" | "platform unreachable" | "disabled";

/** What the status reads: the operator context without its queues. */
export type StatusSource = Pick<OpsContext, "config" | "redis" | "registry" | "users" | "groups" | "state" | "resyncs" | "usage">;

export interface DirectoryStatus {
  id: string;
  displayName?: string;
  target: "workforce" | "embed";
  /** "config": from the config file, read-only; "runtime": made through the admin API. */
  source: "config" | "runtime";
  disabled: boolean;
  /** The SCIM base URL to give the IdP. */
  scimBaseUrl: string;
  health: Health;
  users: number;
  groups: number;
  items: Record<SyncStatus, number>;
  /**
   * waiting: resources in the backlog (a paused directory's too); outbox: changes accepted from the IdP not
   * yet taken into it; active: admitted and not finished (running or waiting out a retry delay); failed:
   * failed for good (the sync state).
   */
  queue: { waiting: number; outbox: number; active: number; delayed: number; failed: number; paused: boolean };
  /** The age of what waits: the oldest change not yet applied, and how many wait (outbox + backlog + active). */
  lag: { oldestWaitingSince: string | null; ageMs: number; waiting: number };
  /** Whether the platform answers the directory's calls: `unreachableSince` the first unanswered call (no answer or 5xx) since the last success. */
  platform: { reachable: boolean; unreachableSince: string | null };
  lastSyncAt: string | null;
  paused: { reason: string; at: string | null } | null;
  /** Platform health: the key's last verification or, since, a successful call (`healthy`: status "ok"). */
  platformKey: { status: string; healthy: boolean; checkedAt: string | null };
  /** The directory's label in an unauthenticated /metrics (`directory="<metricsLabel>"`). */
  metricsLabel: string | null;
  externalUsers?: { used: number; limit: number; percent: number; warning: boolean };
  resync: ResyncProgress;
}

export interface FailedItem {
  kind: SyncKind;
  id: string;
  name: string | null;
  lastError: string | null;
  attempts: number;
  since: string | null;
}

/** The SCIM base URL of a directory, as the IdP is given it. */
export function scimBaseUrl(config: Config, id: string): string {
  return `${config.server.publicBaseUrl ?? `http://127.0.0.1:${config.server.port}`}/scim/v2/${id}`;
}

/** Status of one directory. */
export async function directoryStatus(c: StatusSource, id: string): Promise<DirectoryStatus> {
  const entry = c.registry.get(id);
  if (!entry) throw new Error(`unknown directory "${id}"`);
  const dir = entry.dir;
  const [items, users, groups, meta, resync] = await Promise.all([
    c.state.counts(id), c.users.count(id), c.groups.count(id), c.state.meta(id), c.resyncs.progress(id),
  ]);
  const isPaused = meta.paused !== undefined;
  const w = await oldestWaiting(c.redis, c.config.redis.keyPrefix, id, meta.pausedAt);
  const waiting = w.backlog;
  const queueView = { waiting, outbox: w.outbox, active: w.admitted, delayed: 0, failed: items.failed, paused: isPaused };
  let externalUsers: DirectoryStatus["externalUsers"];
  if (dir.target === "embed" && dir.embed) {
    const used = await c.usage.count(dir.platform.baseUrl);
    const limit = dir.embed.externalUserLimit;
    externalUsers = { used, limit, percent: Math.round((used / limit) * 1000) / 10, warning: used >= limit * 0.9 };
  }
  const paused = meta.paused ? { reason: meta.paused, at: meta.pausedAt ?? null } : null;
  const busy = items.pending > 0 || w.waiting > 0 || resync.status === "running";
  const unreachableSince = meta.unreachableSince ?? null;
  // an outage is said as one, not as "syncing": nothing moves until the platform answers
  const health: Health = entry.disabled ? "disabled" : paused || isPaused ? "paused" : unreachableSince ? "platform unreachable"
    : items.failed > 0 ? "failing" : busy ? "syncing" : "in sync";
  return {
    id, displayName: dir.displayName, target: dir.target, source: entry.source, disabled: entry.disabled, scimBaseUrl: scimBaseUrl(c.config, id), health, users, groups, items, queue: queueView,
    lastSyncAt: meta.lastSyncAt ?? null, paused: paused ?? (isPaused ? { reason: "paused by an operator", at: null } : null),
    platformKey: { status: meta.keyStatus ?? "unchecked", healthy: platformHealthy(meta.keyStatus), checkedAt: meta.keyCheckedAt ?? null },
    lag: { oldestWaitingSince: w.since, ageMs: w.ageMs, waiting: w.waiting },
    platform: { reachable: !unreachableSince, unreachableSince },
    metricsLabel: await new DirectoryLabels(c.redis, metricsSaltKey(c.config.redis.keyPrefix)).label(id).catch(() => null),
    ...(externalUsers ? { externalUsers } : {}), resync,
  };
}

/** Failed items of a directory with the platform's message (the dead letter), newest first. */
export async function failedItems(c: StatusSource, id: string, limit = 500): Promise<FailedItem[]> {
  const out: FailedItem[] = [];
  for (const { kind, id: itemId } of (await c.state.inStatus(id, "failed")).slice(0, limit)) {
    const st = await c.state.get(id, kind, itemId);
    let name: string | null = null;
    if (kind === "user") name = (await c.users.get(id, itemId))?.body.userName as string ?? null;
    else name = (await c.groups.get(id, itemId, false))?.body.displayName as string ?? null;
    out.push({ kind, id: itemId, name, lastError: st.lastError ?? null, attempts: st.attempts, since: st.changedAt ?? null });
  }
  return out.sort((a, b) => String(b.since).localeCompare(String(a.since)));
}
