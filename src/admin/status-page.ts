/**
 * The status page: server-rendered HTML, no front-end build. Directories at a glance (in sync / syncing /
 * failing / paused), a resync's progress bar, the latest failures with the platform's messages, and a
 * button per action an operator takes (retry failed, resume, resync, dry run, confirm or cancel held
 * deprovisions), what a resync awaiting confirmation would deprovision, the latest dry runs. Refreshes itself every 5 s.
 */
import { resyncPercent, type PlanReport } from "../sync/resync";
import type { PlanItem } from "../sync/resync-plan";
import type { DirectoryStatus, FailedItem } from "./directory-status";

/** HTML-escapes text. */
export function esc(v: unknown): string {
  return String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!);
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24}h1{font-size:20px}table{border-collapse:collapse;margin:8px 0 20px}
th,td{border-bottom:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top}th{background:#f6f8fa}
.state{font-weight:600;padding:2px 8px;border-radius:10px;white-space:nowrap}.in-sync{background:#dafbe1}.syncing{background:#ddf4ff}.failing{background:#ffebe9}.paused{background:#fff8c5}
.msg{font-family:ui-monospace,monospace;font-size:12px}form{display:inline}button{margin:0 4px 4px 0}progress{width:200px}`;

function page(title: string, body: string, refresh = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh ? "<meta http-equiv=\"refresh\" content=\"5\">" : ""}
<title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The sign-in page (what an unauthenticated person sees). */
export function loginPage(error?: string): string {
  return page("scim-bridge — sign in", `<h1>scim-bridge status</h1>
<p>Sign in with an admin token.</p>${error ? `<p role="alert" class="failing">${esc(error)}</p>` : ""}
<form method="post" action="/admin/login"><label>Admin token <input type="password" name="token" autocomplete="off" required></label>
<button type="submit">Sign in</button></form>`);
}

function resyncCell(d: DirectoryStatus): string {
  const r = d.resync;
  if (!r.status) return "never";
  const pct = resyncPercent(r);
  const summary = `created ${r.created}, updated ${r.updated}, deactivated ${r.deactivated}, deleted ${r.deleted}, unchanged ${r.unchanged}, failed ${r.failed}`;
  const state = r.status === "awaiting-confirmation" ? `<strong class="state failing">awaiting confirmation</strong> of ${r.held} deprovision(s)`
    : r.status === "running" ? `running (${esc(r.phase)})` : r.phase === "cancelled" ? "done (deprovisions cancelled)" : "done";
  return `<progress max="100" value="${pct}" aria-label="resync of ${esc(d.id)}">${pct}%</progress> <span class="resync-pct">${pct}%</span>
<div>${state}: ${summary}</div>`;
}

function actions(d: DirectoryStatus): string {
  const btn = (path: string, label: string) => `<form method="post" action="/admin/directories/${esc(d.id)}/${path}"><button type="submit">${label}</button></form>`;
  const dry = `<form method="post" action="/admin/directories/${esc(d.id)}/resync?dryRun=true"><button type="submit">Dry run</button></form>`;
  const answer = d.resync.status === "awaiting-confirmation" ? btn("resync/confirm", "Confirm deprovisions") + btn("resync/cancel", "Cancel deprovisions") : "";
  return [d.items.failed ? btn("retry", "Retry failed") : "", d.paused ? btn("resume", "Resume") : "", answer, btn("resync", "Resync"), dry].join("");
}

const itemRows = (items: PlanItem[]) => items.slice(0, 50).map((it) => `<tr><td>${esc(it.kind)}</td><td>${esc(it.name ?? "")}</td><td class="msg">${esc(it.id)}</td><td class="msg">${esc(it.platformId ?? "")}</td></tr>`).join("");
const itemTable = (items: PlanItem[], total: number) => `<table><thead><tr><th>Kind</th><th>Name</th><th>Id</th><th>Platform id</th></tr></thead><tbody>${itemRows(items)}</tbody></table>${total > 50 ? `<p>… and ${total - 50} more (admin API: GET /admin/directories/&lt;id&gt;/resync)</p>` : ""}`;

/** Resyncs that hold deprovisions (what they would deprovision) and the latest dry runs. */
function resyncSections(dirs: DirectoryStatus[], held: Map<string, PlanItem[]>, plans: Map<string, PlanReport>): string {
  const awaiting = dirs.filter((d) => d.resync.status === "awaiting-confirmation").map((d) => `<section data-awaiting="${esc(d.id)}"><h3>${esc(d.id)}: resync awaits confirmation</h3>
<p>${esc(d.resync.holdReason)}. Creates and updates were applied; these would be deprovisioned:</p>${itemTable(held.get(d.id) ?? [], d.resync.held)}</section>`).join("");
  const dry = [...plans.values()].map((p) => `<section data-plan="${esc(p.directory)}"><h3>${esc(p.directory)}: dry run of ${esc(p.at)}</h3>
<p>create ${p.counts.create}, update ${p.counts.update}, unchanged ${p.counts.unchanged}, deprovision ${p.counts.deprovision} of ${p.counts.managed} managed${p.wouldHold ? ` — a resync would wait for confirmation: ${esc(p.wouldHold)}` : ""}</p>
${p.deprovision.length ? itemTable(p.deprovision, p.counts.deprovision) : ""}</section>`).join("");
  return (awaiting ? `<h2>Awaiting confirmation</h2>${awaiting}` : "") + (dry ? `<h2>Dry runs</h2>${dry}` : "");
}

/** The dashboard. */
export function statusPage(dirs: DirectoryStatus[], failures: Map<string, FailedItem[]>, now = new Date(),
  held = new Map<string, PlanItem[]>(), plans = new Map<string, PlanReport>()): string {
  const rows = dirs.map((d) => `<tr data-directory="${esc(d.id)}">
<td><strong>${esc(d.id)}</strong>${d.displayName ? `<br>${esc(d.displayName)}` : ""}</td><td>${esc(d.target)}</td>
<td><span class="state ${d.health.replace(" ", "-")}">${esc(d.health)}</span>${d.paused ? `<div class="msg">${esc(d.paused.reason)}</div>` : ""}</td>
<td>${d.users} users, ${d.groups} groups</td>
<td>${d.items.synced} synced, ${d.items.pending} pending, ${d.items.failed} failed, ${d.items.deprovisioned} deprovisioned</td>
<td>${d.queue.waiting} waiting, ${d.queue.active} active, ${d.queue.delayed} delayed</td>
<td>${esc(d.lastSyncAt ?? "never")}</td>
<td class="platform">${d.platformKey.healthy ? "healthy" : `<span class="state failing">${esc(d.platformKey.status.split(":")[0])}</span><div class="msg">${esc(d.platformKey.status)}</div>`}<div>${esc(d.platformKey.checkedAt ?? "")}</div></td>
<td>${d.externalUsers ? `${d.externalUsers.used} / ${d.externalUsers.limit} (${d.externalUsers.percent}%)${d.externalUsers.warning ? " ⚠" : ""}` : "—"}</td>
<td>${resyncCell(d)}</td><td>${actions(d)}</td></tr>`).join("");
  const fails = dirs.filter((d) => (failures.get(d.id) ?? []).length).map((d) => `<h3>${esc(d.id)}</h3><table><thead><tr><th>Kind</th><th>Name</th><th>Platform message</th><th>Attempts</th><th>Since</th></tr></thead><tbody>
${(failures.get(d.id) ?? []).slice(0, 20).map((f) => `<tr><td>${esc(f.kind)}</td><td>${esc(f.name ?? f.id)}</td><td class="msg">${esc(f.lastError)}</td><td>${f.attempts}</td><td>${esc(f.since)}</td></tr>`).join("")}
</tbody></table>`).join("");
  return page("scim-bridge status", `<h1>scim-bridge status</h1><p>As of ${esc(now.toISOString())} · <a href="/admin/queues">queues</a> ·
<form method="post" action="/admin/logout"><button type="submit">Sign out</button></form></p>
<table><thead><tr><th>Directory</th><th>Target</th><th>State</th><th>Desired</th><th>Sync status</th><th>Queue</th><th>Last sync</th><th>Platform</th><th>External users</th><th>Resync</th><th>Actions</th></tr></thead>
<tbody>${rows || "<tr><td colspan=\"11\">No directories configured.</td></tr>"}</tbody></table>
${resyncSections(dirs, held, plans)}
<h2>Latest failures</h2>${fails || "<p>No failed items.</p>"}`, true);
}
