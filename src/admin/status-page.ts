/**
 * The status page: server-rendered HTML, no front-end build. Directories at a glance (in sync / syncing /
 * failing / paused), a resync's progress bar, the latest failures with the platform's messages, and a
 * button per action an operator takes (retry failed, resume, resync, dry run, confirm or cancel held
 * deprovisions), what a resync awaiting confirmation would deprovision, the latest dry runs. Refreshes itself every 5 s.
 */
import { formTokenField } from "./forgery/form-token";
import { resyncPercent, type PlanReport } from "../sync/resync/resync";
import type { PlanItem } from "../sync/resync/plan";
import type { DirectoryStatus, FailedItem } from "./directory-status";
import type { Series } from "../activity/minute-counters";
import { chart } from "./charts";
import { duration, esc, when } from "./html";
import { itemHref, searchForm } from "./item-page";
import { brakeSections } from "./brake-section";
import type { BrakeStatus } from "../sync/brake/brake";

export { esc };

/** The status page's charts of one directory: the last 24 h, one value per minute per series. */
export type DirectoryCharts = Record<Series, number[]>;

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f24}h1{font-size:20px}table{border-collapse:collapse;margin:8px 0 20px}
th,td{border-bottom:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top}th{background:#f6f8fa}
.state{font-weight:600;padding:2px 8px;border-radius:10px;white-space:nowrap}.in-sync{background:#dafbe1}.syncing{background:#ddf4ff}.failing{background:#ffebe9}.paused{background:#fff8c5}
.msg{font-family:ui-monospace,monospace;font-size:12px}form{display:inline}button{margin:0 4px 4px 0}progress{width:200px}
.disabled{background:#eaeef2}.badge{font-size:11px;padding:1px 6px;border-radius:8px;background:#eaeef2}.charts{display:flex;flex-wrap:wrap;gap:12px}
figure.chart{margin:0}figcaption{font-size:12px}time{border-bottom:1px dotted #8c959f}ol.timeline{list-style:none;padding-left:0}ol.timeline li{padding:4px 0;border-bottom:1px solid #eaeef2}
.ev-failed,.ev-paused{color:#a40e26}.ev-applied{color:#116329}textarea{width:100%;max-width:720px;font-family:ui-monospace,monospace}`;

export function page(title: string, body: string, refresh = false): string {
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

/** "42 items/s, about 3 min left" for a running resync. */
function resyncRate(d: DirectoryStatus, now: Date): string {
  const r = d.resync;
  if (r.status !== "running" || !r.startedAt || !r.total) return "";
  const elapsed = (now.getTime() - Date.parse(r.startedAt)) / 1000;
  if (!(elapsed > 0) || !r.done) return `<div class="resync-rate">started ${when(r.startedAt, now)}</div>`;
  const rate = r.done / elapsed;
  return `<div class="resync-rate">${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} items/s, about ${duration((r.total - r.done) / rate)} left</div>`;
}

function resyncCell(d: DirectoryStatus, now = new Date()): string {
  const r = d.resync;
  if (!r.status) return "never";
  const pct = resyncPercent(r);
  const summary = `created ${r.created}, updated ${r.updated}, deactivated ${r.deactivated}, deleted ${r.deleted}, unchanged ${r.unchanged}, failed ${r.failed}`;
  const state = r.status === "awaiting-confirmation" ? `<strong class="state failing">awaiting confirmation</strong> of ${r.held} deprovision(s)`
    : r.status === "running" ? `running (${esc(r.phase)})` : r.phase === "cancelled" ? "done (deprovisions cancelled)" : "done";
  return `<progress max="100" value="${pct}" aria-label="resync of ${esc(d.id)}">${pct}%</progress> <span class="resync-pct">${pct}%</span>
<div>${state}: ${summary}</div>${resyncRate(d, now)}`;
}

function actions(d: DirectoryStatus): string {
  const btn = (path: string, label: string) => `<form method="post" action="/admin/directories/${esc(d.id)}/${path}">${formTokenField()}<button type="submit">${label}</button></form>`;
  const dry = `<form method="post" action="/admin/directories/${esc(d.id)}/resync?dryRun=true">${formTokenField()}<button type="submit">Dry run</button></form>`;
  const deleting = d.resync.purpose === "delete" && d.resync.status !== "done";
  const answerDelete = (field: "confirm" | "cancel", label: string) => `<form method="post" action="/admin/directories/${esc(d.id)}/delete">${formTokenField()}<input type="hidden" name="platform" value="deprovision"><input type="hidden" name="${field}" value="true"><button type="submit">${label}</button></form>`;
  const answer = d.resync.status !== "awaiting-confirmation" ? ""
    : deleting ? answerDelete("confirm", "Confirm: deprovision and delete") + answerDelete("cancel", "Cancel the delete")
    : btn("resync/confirm", "Confirm deprovisions") + btn("resync/cancel", "Cancel deprovisions");
  const onOff = d.disabled ? btn("enable", "Enable") : btn("disable", "Disable");
  // a disabled runtime directory can be deleted, on a page of its own (src/admin/delete-page.ts)
  const del = d.disabled && d.source === "runtime" && !deleting ? `<a href="/admin/status/${esc(d.id)}/delete" data-delete="${esc(d.id)}">Delete…</a>` : "";
  return [d.items.failed ? btn("retry", "Retry failed") : "", d.paused && !d.disabled ? btn("resume", "Resume") : "", answer, btn("resync", "Resync"), dry, onOff, del].join("");
}

const itemRows = (items: PlanItem[]) => items.slice(0, 50).map((it) => `<tr><td>${esc(it.kind)}</td><td>${esc(it.name ?? "")}</td><td class="msg">${esc(it.id)}</td><td class="msg">${esc(it.platformId ?? "")}</td></tr>`).join("");
const itemTable = (items: PlanItem[], total: number) => `<table><thead><tr><th>Kind</th><th>Name</th><th>Id</th><th>Platform id</th></tr></thead><tbody>${itemRows(items)}</tbody></table>${total > 50 ? `<p>… and ${total - 50} more (admin API: GET /admin/directories/&lt;id&gt;/resync)</p>` : ""}`;

/** Resyncs that hold deprovisions (what they would deprovision) and the latest dry runs. */
function resyncSections(dirs: DirectoryStatus[], held: Map<string, PlanItem[]>, plans: Map<string, PlanReport>): string {
  const awaiting = dirs.filter((d) => d.resync.status === "awaiting-confirmation").map((d) => d.resync.purpose === "delete"
    ? `<section data-awaiting="${esc(d.id)}"><h3>${esc(d.id)}: delete awaits confirmation</h3>
<p>${esc(d.resync.holdReason)}. Nothing has been deprovisioned yet; these would be:</p>${itemTable(held.get(d.id) ?? [], d.resync.held)}</section>`
    : `<section data-awaiting="${esc(d.id)}"><h3>${esc(d.id)}: resync awaits confirmation</h3>
<p>${esc(d.resync.holdReason)}. Creates and updates were applied; these would be deprovisioned:</p>${itemTable(held.get(d.id) ?? [], d.resync.held)}</section>`).join("");
  const dry = [...plans.values()].map((p) => `<section data-plan="${esc(p.directory)}"><h3>${esc(p.directory)}: dry run of ${esc(p.at)}</h3>
<p>create ${p.counts.create}, update ${p.counts.update}, unchanged ${p.counts.unchanged}, deprovision ${p.counts.deprovision} of ${p.counts.managed} managed${p.wouldHold ? ` — a resync would wait for confirmation: ${esc(p.wouldHold)}` : ""}</p>
${p.deprovision.length ? itemTable(p.deprovision, p.counts.deprovision) : ""}</section>`).join("");
  return (awaiting ? `<h2>Awaiting confirmation</h2>${awaiting}` : "") + (dry ? `<h2>Dry runs</h2>${dry}` : "");
}

/** The dashboard. */
export function statusPage(dirs: DirectoryStatus[], failures: Map<string, FailedItem[]>, now = new Date(),
  held = new Map<string, PlanItem[]>(), plans = new Map<string, PlanReport>(), charts = new Map<string, DirectoryCharts>(),
  brakes = new Map<string, BrakeStatus>()): string {
  const chartRow = (d: DirectoryStatus) => {
    const c = charts.get(d.id);
    if (!c) return "";
    return `<tr class="chart-row" data-charts="${esc(d.id)}"><td colspan="11"><div class="charts">
${chart("changes from the IdP", c.idp, "sum", now)}${chart("platform calls", c.calls, "sum", now)}${chart("platform call failures", c.callFailures, "sum", now, "", "#cf222e")}
${chart("queue depth", c.queue, "max", now)}${chart("sync lag", c.lag, "max", now, "ms", "#8250df")}</div></td></tr>`;
  };
  const rows = dirs.map((d) => `<tr data-directory="${esc(d.id)}">
<td><strong>${esc(d.id)}</strong> <span class="badge">${d.source === "config" ? "from config" : "runtime"}</span>${d.displayName ? `<br>${esc(d.displayName)}` : ""}
<div class="msg">${esc(d.scimBaseUrl)}</div>${searchForm(d.id)}</td><td>${esc(d.target)}</td>
<td><span class="state ${d.health.replace(" ", "-")}">${esc(d.health)}</span>${d.paused ? `<div class="msg">${esc(d.paused.reason)}</div>` : ""}</td>
<td>${d.users} users, ${d.groups} groups</td>
<td>${d.items.synced} synced, ${d.items.pending} pending, ${d.items.failed} failed, ${d.items.deprovisioned} deprovisioned</td>
<td>${d.queue.waiting} waiting, ${d.queue.active} active, ${d.queue.delayed} delayed</td>
<td>${when(d.lastSyncAt, now)}</td>
<td class="platform">${d.platformKey.healthy ? "healthy" : `<span class="state failing">${esc(d.platformKey.status.split(":")[0])}</span><div class="msg">${esc(d.platformKey.status)}</div>`}<div>${when(d.platformKey.checkedAt, now, "")}</div></td>
<td>${d.externalUsers ? `${d.externalUsers.used} / ${d.externalUsers.limit} (${d.externalUsers.percent}%)${d.externalUsers.warning ? " ⚠" : ""}` : "—"}</td>
<td>${resyncCell(d, now)}</td><td>${actions(d)}</td></tr>${chartRow(d)}`).join("");
  const fails = dirs.filter((d) => (failures.get(d.id) ?? []).length).map((d) => `<h3>${esc(d.id)}</h3><table><thead><tr><th>Kind</th><th>Name</th><th>Platform message</th><th>Attempts</th><th>Since</th></tr></thead><tbody>
${(failures.get(d.id) ?? []).slice(0, 20).map((f) => `<tr><td>${esc(f.kind)}</td><td><a href="${itemHref(d.id, f.kind, f.id)}">${esc(f.name ?? f.id)}</a></td><td class="msg">${esc(f.lastError)}</td><td>${f.attempts}</td><td>${when(f.since, now)}</td></tr>`).join("")}
</tbody></table>`).join("");
  return page("scim-bridge status", `<h1>scim-bridge status</h1><p>As of ${esc(now.toISOString())} · <a href="/admin/queues">queues</a> ·
<form method="post" action="/admin/logout">${formTokenField()}<button type="submit">Sign out</button></form></p>
<table><thead><tr><th>Directory</th><th>Target</th><th>State</th><th>Desired</th><th>Sync status</th><th>Queue</th><th>Last sync</th><th>Platform</th><th>External users</th><th>Resync</th><th>Actions</th></tr></thead>
<tbody>${rows || "<tr><td colspan=\"11\">No directories configured.</td></tr>"}</tbody></table>
${resyncSections(dirs, held, plans)}
${brakeSections([...brakes.values()], now)}
<h2>Latest failures</h2>${fails || "<p>No failed items.</p>"}
<p><a href="/admin/status/new">Add a directory</a></p>`, true);
}

/** The page that creates a directory (no refresh: a person types here). */
export function newDirectoryPage(input?: string, issues?: string[]): string {
  const value = input ?? `{"id": "", "displayName": "", "target": "workforce",\n "platform": {"baseUrl": "https://", "deploymentId": 1, "apiKeyEnv": "PLATFORM_API_KEY"}}`;
  return page("scim-bridge — add a directory", `<p><a href="/admin/status">← status</a></p><h1>Add a directory</h1>
${issues ? `<div role="alert" class="failing"><p>Not created:</p><ul>${issues.map((i) => `<li class="msg">${esc(i)}</li>`).join("")}</ul></div>` : ""}
<form method="post" action="/admin/directories">${formTokenField()}<label for="new-directory">The directory as a config file's <code>directories[]</code> entry holds it, without <code>tokenHashes</code></label><br>
<textarea id="new-directory" name="directory" rows="8" required>${esc(value)}</textarea><br>
<button type="submit">Create directory</button></form>`);
}

/** What a person sees once: the SCIM base URL and the first token of a directory made on the page. */
export function createdPage(id: string, scimBaseUrl: string, token: string): string {
  return page(`scim-bridge — ${id} created`, `<p><a href="/admin/status">← status</a></p><h1>Directory ${esc(id)} created</h1>
<p>Give the IdP these now. The token is shown this once: only its hash is kept.</p>
<table><tbody><tr><th>SCIM base URL</th><td class="msg" data-field="scim-base-url">${esc(scimBaseUrl)}</td></tr>
<tr><th>Bearer token</th><td class="msg" data-field="token">${esc(token)}</td></tr></tbody></table>`);
}
