/**
 * The status page's item view and search: one user or group with its sync state and its activity trail
 * as a timeline (what the IdP sent, what the bridge applied, each platform call, retries and pauses), and
 * the search by userName / displayName that leads there. An IdP event links to its request in the
 * directory's SCIM request log (request-log-page.ts links back). Server-rendered, no script.
 */
import { formTokenField } from "./forgery/form-token";
import type { ActivityEvent } from "../activity/activity-store";
import { esc, when } from "./html";

export interface ItemView {
  directory: string;
  kind: "user" | "group";
  id: string;
  name: string | null;
  exists: boolean;
  sync: { status: string | null; lastError: string | null; attempts: number; changedAt: string | null; syncedAt: string | null; platformId: string | null };
  events: ActivityEvent[];
}

export interface SearchHit {
  kind: "user" | "group";
  id: string;
  name: string;
}

/** The form that runs a resource's reconcile now and shows each step (explain-page.ts). */
export function syncNowForm(dir: string, kind: string, id: string): string {
  return `<form method="post" action="${itemHref(dir, kind, id)}/sync-now" data-sync-now>${formTokenField()}<button type="submit">Sync now</button></form>`;
}

/** The link to an item's view. */
export function itemHref(directory: string, kind: string, id: string): string {
  return `/admin/status/${encodeURIComponent(directory)}/${kind === "group" ? "groups" : "users"}/${encodeURIComponent(id)}`;
}

/** The link from an IdP event to its entry in the directory's SCIM request log. */
const requestLink = (dir: string, e: ActivityEvent) => (e.requestId
  ? ` <a href="/admin/status/${encodeURIComponent(dir)}/requests/${encodeURIComponent(e.requestId)}" data-request-link="${esc(e.requestId)}">request ${esc(e.requestId)}</a>` : "");

function describe(dir: string, e: ActivityEvent): string {
  switch (e.type) {
    case "idp": return `IdP ${esc(e.method)}${requestLink(dir, e)}${e.attributes?.length ? `: ${e.attributes.map(esc).join(", ")}` : ""}${e.ignored?.length ? ` (ignored, not declared: ${e.ignored.map(esc).join(", ")})` : ""}`;
    case "applied": return `applied: <strong>${esc(e.outcome)}</strong>`;
    case "call": return `platform ${esc(e.method)} <span class="msg">${esc(e.path)}</span> → ${e.status ? esc(e.status) : "no answer"}${e.attempt && e.attempt > 1 ? ` (try ${e.attempt})` : ""}${e.message ? ` <span class="msg">${esc(e.message)}</span>` : ""}`;
    case "retry": return `will retry${e.attempt ? ` (attempt ${e.attempt} failed)` : ""}: <span class="msg">${esc(e.message)}</span>`;
    case "failed": return `<strong>failed</strong>: <span class="msg">${esc(e.message)}</span>`;
    case "paused": return `directory paused: <span class="msg">${esc(e.message)}</span>`;
    case "rate-limited": return `rate limited, waiting: <span class="msg">${esc(e.message)}</span>`;
    case "waiting": return `waiting: <span class="msg">${esc(e.message)}</span>`;
    default: return esc(JSON.stringify(e));
  }
}

/** A group refused its platform name: the form that gives the name to it instead (keep-name-routes.ts). */
function keepNameForm(v: ItemView): string {
  return `<form method="post" action="/admin/directories/${esc(v.directory)}/groups/${esc(v.id)}/keep-name" data-keep-name>${formTokenField()}`
    + `<p>Another group of this directory has the same platform name. If the IdP uses this group (for example a second group made when a create was retried), give the name to it: it takes over the platform group and its members replace the other's; the other fails until it is renamed or deleted in the IdP.</p>`
    + `<button type="submit">Keep the platform name for this group</button></form>`;
}

/** The body of the item view. */
export function itemBody(v: ItemView, now: Date): string {
  const s = v.sync;
  const events = v.events.map((e) => `<li class="ev ev-${esc(e.type)}" data-type="${esc(e.type)}">${when(e.at, now)} — ${describe(v.directory, e)}</li>`).join("");
  return `<p><a href="/admin/status/${encodeURIComponent(v.directory)}">← ${esc(v.directory)}</a></p>
<h1>${esc(v.kind)} ${esc(v.name ?? v.id)} <span class="msg">in ${esc(v.directory)}</span></h1>
${v.exists ? "" : "<p>Not in the directory's store (deleted, or never received).</p>"}
<table class="sync"><tbody>
<tr><th>Sync status</th><td><span class="state ${esc(s.status === "failed" ? "failing" : s.status === "synced" ? "in-sync" : "syncing")}">${esc(s.status ?? "none")}</span></td></tr>
<tr><th>Last error</th><td class="msg">${esc(s.lastError ?? "—")}</td></tr>
<tr><th>Attempts</th><td>${s.attempts}</td></tr>
<tr><th>Status since</th><td>${when(s.changedAt, now)}</td></tr>
<tr><th>Last synced</th><td>${when(s.syncedAt, now)}</td></tr>
<tr><th>Platform id</th><td class="msg">${esc(s.platformId ?? "—")}</td></tr>
<tr><th>Id</th><td class="msg">${esc(v.id)}</td></tr>
</tbody></table>
<p class="item-actions"><a href="${itemHref(v.directory, v.kind, v.id)}/explain" data-explain>Explain: why ${s.status === "synced" ? "is it" : "isn't it"} in sync?</a>
${syncNowForm(v.directory, v.kind, v.id)}
${s.status === "failed" ? `<form method="post" action="/admin/directories/${esc(v.directory)}/items/${esc(v.kind)}/${esc(v.id)}/retry">${formTokenField()}<button type="submit">Retry</button></form>` : ""}</p>
${v.kind === "group" && s.status === "failed" && s.lastError?.startsWith("name conflict") ? keepNameForm(v) : ""}
<h2>Activity, newest first</h2>
${events ? `<ol class="timeline">${events}</ol>` : "<p>No activity recorded.</p>"}`;
}

/** The search form of a directory. */
export function searchForm(directory: string, q = ""): string {
  return `<form method="get" action="/admin/status/${esc(directory)}/search" role="search"><label>Find in ${esc(directory)} <input type="search" name="q" value="${esc(q)}" placeholder="userName or displayName"></label> <button type="submit">Search</button></form> <a href="/admin/status/${esc(directory)}/requests" data-requests="${esc(directory)}">SCIM requests</a>`;
}

/** The body of a search's results. */
export function searchBody(directory: string, q: string, hits: SearchHit[]): string {
  const rows = hits.map((h) => `<tr><td>${esc(h.kind)}</td><td><a href="${itemHref(directory, h.kind, h.id)}">${esc(h.name)}</a></td><td class="msg">${esc(h.id)}</td></tr>`).join("");
  return `<p><a href="/admin/status/${encodeURIComponent(directory)}">← ${esc(directory)}</a></p><h1>Search in ${esc(directory)}</h1>${searchForm(directory, q)}
${rows ? `<table><thead><tr><th>Kind</th><th>Name</th><th>Id</th></tr></thead><tbody>${rows}</tbody></table>` : `<p>Nothing matches “${esc(q)}”.</p>`}`;
}
