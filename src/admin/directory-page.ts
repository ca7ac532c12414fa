/**
 * One directory's page: its state in words (and why it is paused), counts, queue, platform health,
 * external users, the resync and the latest dry run, what waits for a confirmation, its failures with the
 * platform's messages, the charts of the last 24 h, the actions, the search and the SCIM request log.
 * Figures refresh in place (live.ts); the search form is outside the refreshed parts, so typing survives.
 */
import type { DirectoryStatus, FailedItem } from "./directory-status";
import type { PlanItem } from "../sync/resync/plan";
import type { PlanReport } from "../sync/resync/resync";
import type { BrakeStatus } from "../sync/brake/brake";
import type { Series } from "../activity/minute-counters";
import { chart } from "./charts";
import { duration, esc, when } from "./html";
import { itemHref, searchForm } from "./item-page";
import { brakeSections } from "./brake-section";
import { liveRegion } from "./live";
import { formTokenField } from "./forgery/form-token";
import { actions, awaitingSection, planSection, resyncCell } from "./status-page";

/** A directory's charts: the last 24 h, one value per minute per series. */
export type DirectoryCharts = Record<Series, number[]>;

/** Everything a directory's page shows. */
export interface DirectoryView {
  status: DirectoryStatus;
  failures: FailedItem[];
  held: PlanItem[];
  plan?: PlanReport;
  /** Absent: not read for this refresh (the charts region is left out). */
  charts?: DirectoryCharts;
  brake?: BrakeStatus;
}

function facts(d: DirectoryStatus, now: Date): string {
  const row = (k: string, v: string, key = "") => `<dt>${k}</dt><dd${key ? ` data-fact="${key}"` : ""}>${v}</dd>`;
  const key = d.platformKey.healthy ? "key healthy" : `<span class="state failing">${esc(d.platformKey.status.split(":")[0])}</span> <span class="msg">${esc(d.platformKey.status)}</span>`;
  const platform = d.platform.unreachableSince ? `<span class="state platform-unreachable">unreachable since ${when(d.platform.unreachableSince, now)}</span> <span class="msg">${esc(d.platform.unreachableSince)}</span>; ${key}` : `answers; ${key}`;
  return `<dl class="facts">${row("State", `<span class="state ${esc(d.health.replace(" ", "-"))}">${esc(d.health)}</span>${d.paused ? ` <span class="msg">${esc(d.paused.reason)}</span>${d.paused.at ? ` since ${when(d.paused.at, now)}` : ""}` : ""}`, "state")}
${row("Desired", `${d.users} users, ${d.groups} groups`, "desired")}
${row("Sync status", `${d.items.synced} synced, ${d.items.pending} pending, ${d.items.failed} failed, ${d.items.deprovisioned} deprovisioned`, "sync")}
${row("Queue", `${d.queue.waiting} waiting in the backlog${d.queue.paused ? " (held by the pause)" : ""}, ${d.queue.outbox} in the outbox, ${d.queue.active} active`, "queue")}
${row("Lag", d.lag.waiting ? `the oldest waiting change is ${duration(d.lag.ageMs / 1000)} old${d.lag.oldestWaitingSince ? ` (since ${when(d.lag.oldestWaitingSince, now)})` : ""}; ${d.lag.waiting} waiting` : "nothing waits", "lag")}
${row("Last sync", when(d.lastSyncAt, now), "last-sync")}
${row("Platform", `${platform} <span class="live-state">checked ${when(d.platformKey.checkedAt, now, "never")}</span>`, "platform")}
${d.externalUsers ? row("External users", `${d.externalUsers.used} / ${d.externalUsers.limit} (${d.externalUsers.percent}%)${d.externalUsers.warning ? " ⚠ near the account's limit" : ""}`, "external-users") : ""}
${row("Resync", resyncCell(d, now), "resync")}</dl>`;
}

function failuresTable(d: DirectoryStatus, failures: FailedItem[], now: Date): string {
  if (!failures.length) return "<p>No failed items.</p>";
  const more = d.items.failed > failures.length ? `<p>… and ${d.items.failed - failures.length} more (admin API: GET /admin/directories/${esc(d.id)}/failed)</p>` : "";
  return `<div class="scroll"><table class="failures"><thead><tr><th>Kind</th><th>Name</th><th>Platform message</th><th>Attempts</th><th>Since</th></tr></thead><tbody>
${failures.map((f) => `<tr><td>${esc(f.kind)}</td><td><a href="${itemHref(d.id, f.kind, f.id)}">${esc(f.name ?? f.id)}</a></td><td class="msg">${esc(f.lastError)}</td><td>${f.attempts}</td><td>${when(f.since, now)}</td></tr>`).join("")}
</tbody></table></div>${more}`;
}

function chartsOf(c: DirectoryCharts, now: Date): string {
  return `<div class="charts">${chart("changes from the IdP", c.idp, "sum", now, "changes")}${chart("platform calls", c.calls, "sum", now, "calls")}
${chart("platform call failures", c.callFailures, "sum", now, "failures", "#cf222e")}${chart("queue depth", c.queue, "max", now, "items")}${chart("sync lag", c.lag, "max", now, "ms", "#8250df")}</div>`;
}

/** The page's live regions (also what its JSON endpoint answers). */
export function directoryRegions(v: DirectoryView, now: Date): Record<string, string> {
  const d = v.status;
  const waiting = (d.resync.status === "awaiting-confirmation" ? awaitingSection(d, v.held) : "") + (v.brake ? brakeSections([v.brake], now) : "");
  return {
    facts: facts(d, now),
    actions: actions(d),
    waiting: waiting || "<p>Nothing waits for a confirmation.</p>",
    plan: v.plan ? planSection(v.plan) : "<p>No dry run yet: <em>Dry run</em> lists what a resync would change, and changes nothing.</p>",
    failures: failuresTable(d, v.failures, now),
    ...(v.charts ? { charts: chartsOf(v.charts, now) } : {}),
  };
}

/** The page's body. */
export function directoryBody(v: DirectoryView, now: Date): string {
  const d = v.status;
  const r = directoryRegions(v, now);
  return `<nav class="top"><a href="/admin/status">← all directories</a><a href="/admin/queues">Queues</a><a href="/admin/status/${esc(d.id)}/requests">SCIM requests</a>
<form method="post" action="/admin/logout">${formTokenField()}<button type="submit">Sign out</button></form></nav>
<h1>${esc(d.id)} <span class="badge">${d.source === "config" ? "from config" : "runtime"}</span> <span class="badge">${esc(d.target)}</span></h1>
${d.displayName ? `<p>${esc(d.displayName)}</p>` : ""}<p>SCIM base URL <span class="msg">${esc(d.scimBaseUrl)}</span></p>
<p class="live-state"><span id="live-state">as of ${esc(now.toISOString())}</span></p>
${liveRegion("facts", r.facts)}
<h2>Actions</h2>${liveRegion("actions", r.actions)}
<h2>Find a user or group</h2>${searchForm(d.id)}
<h2>Waiting for a confirmation</h2>${liveRegion("waiting", r.waiting)}
<h2>Dry run</h2>${liveRegion("plan", r.plan)}
<h2>Failed items</h2>${liveRegion("failures", r.failures)}
<h2>Last 24 hours</h2>${liveRegion("charts", r.charts ?? "")}`;
}
