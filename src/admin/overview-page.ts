/**
 * The status overview: one compact row per directory (state, counts, queue, last sync, platform, resync)
 * linking to the directory's own page (directory-page.ts), and one line per directory that waits for a
 * person (held deprovisions, failures, a pause). Its figures refresh in place (live.ts).
 */
import type { DirectoryStatus } from "./directory-status";
import type { BrakeStatus } from "../sync/brake/brake";
import { resyncPercent } from "../sync/resync/resync";
import { duration, esc, when } from "./html";
import { liveRegion } from "./live";
import { formTokenField } from "./forgery/form-token";
import { directoryHref } from "./status-page";

function stateCell(d: DirectoryStatus): string {
  const why = d.paused ? `<div class="msg">${esc(d.paused.reason)}</div>` : "";
  return `<span class="state ${esc(d.health.replace(" ", "-"))}">${esc(d.health)}</span>${why}`;
}

function resyncShort(d: DirectoryStatus): string {
  const r = d.resync;
  if (!r.status) return "never";
  if (r.status === "awaiting-confirmation") return `<strong>awaits confirmation</strong> (${r.held})`;
  return r.status === "running" ? `running ${resyncPercent(r)}%` : "done";
}

function row(d: DirectoryStatus, now: Date): string {
  const platform = d.platform.unreachableSince ? `<span class="state platform-unreachable">unreachable</span> since ${when(d.platform.unreachableSince, now)}`
    : d.platformKey.healthy ? "healthy" : `<span class="state failing">${esc(d.platformKey.status.split(":")[0])}</span>`;
  return `<tr data-directory="${esc(d.id)}"><td><a href="${directoryHref(d.id)}"><strong>${esc(d.id)}</strong></a> <span class="badge">${d.source === "config" ? "config" : "runtime"}</span>${d.displayName ? `<div class="wide">${esc(d.displayName)}</div>` : ""}</td>
<td>${stateCell(d)}</td><td>${d.users} / ${d.groups}</td><td>${d.items.pending} / ${d.items.failed}</td><td>${d.lag.waiting}${d.lag.waiting ? ` <span class="msg">oldest ${duration(d.lag.ageMs / 1000)}</span>` : ""}</td>
<td>${when(d.lastSyncAt, now)}</td><td class="wide">${platform}</td><td class="wide">${resyncShort(d)}</td></tr>`;
}

/** One line per directory that waits for a person. */
function attention(dirs: DirectoryStatus[], brakes: Map<string, BrakeStatus>): string {
  const lines: string[] = [];
  for (const d of dirs) {
    const link = (text: string) => `<li data-attention="${esc(d.id)}"><a href="${directoryHref(d.id)}">${esc(d.id)}</a>: ${text}</li>`;
    if (d.resync.status === "awaiting-confirmation") lines.push(link(`${d.resync.purpose === "delete" ? "delete" : "resync"} awaits confirmation of ${d.resync.held} deprovision(s)`));
    const b = brakes.get(d.id);
    if (b?.state === "holding") lines.push(link(`${b.held} deprovision(s) held by the brake`));
    if (d.items.failed) lines.push(link(`${d.items.failed} failed item(s)`));
    if (d.paused && !d.disabled) lines.push(link(`paused: ${esc(d.paused.reason)}; ${d.queue.waiting} in its backlog`));
    if (d.platform.unreachableSince) lines.push(link(`platform unreachable since ${esc(d.platform.unreachableSince)}; ${d.lag.waiting} change(s) wait`));
    else if (!d.platformKey.healthy && d.platformKey.status !== "unchecked") lines.push(link(`platform: ${esc(d.platformKey.status)}`));
  }
  return lines.length ? `<ul class="attention">${lines.join("")}</ul>` : "<p>Nothing waits for you.</p>";
}

/** The overview's live regions (also what its JSON endpoint answers). */
export function overviewRegions(dirs: DirectoryStatus[], brakes: Map<string, BrakeStatus>, now: Date): Record<string, string> {
  return {
    rows: dirs.map((d) => row(d, now)).join("") || "<tr><td colspan=\"8\">No directories configured.</td></tr>",
    attention: attention(dirs, brakes),
  };
}

/** The overview page's body. */
export function overviewBody(dirs: DirectoryStatus[], brakes: Map<string, BrakeStatus>, now: Date): string {
  const r = overviewRegions(dirs, brakes, now);
  return `<nav class="top"><h1>scim-bridge status</h1><a href="/admin/queues">Queues</a><a href="/admin/status/new">Add a directory</a>
<form method="post" action="/admin/logout">${formTokenField()}<button type="submit">Sign out</button></form></nav>
<p class="live-state"><span id="live-state">as of ${esc(now.toISOString())}</span></p>
<h2>Needs attention</h2>${liveRegion("attention", r.attention)}
<h2>Directories</h2><div class="scroll"><table class="overview"><thead><tr><th>Directory</th><th>State</th><th>Users / groups</th><th>Pending / failed</th><th>Waiting</th><th>Last sync</th><th class="wide">Platform</th><th class="wide">Resync</th></tr></thead>
${liveRegion("rows", r.rows, "tbody")}</table></div>`;
}
