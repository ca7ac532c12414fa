/**
 * Pieces of the status pages shared by the overview (overview-page.ts) and a directory's page
 * (directory-page.ts): a resync's progress, the buttons of a directory's actions, the resyncs that wait
 * for a confirmation with what they would deprovision, the latest dry run; and the sign-in and
 * "directory created" pages. Server-rendered HTML, no front-end build.
 */
import { formTokenField } from "./forgery/form-token";
import { resyncPercent, type PlanReport } from "../sync/resync/resync";
import type { PlanItem } from "../sync/resync/plan";
import type { DirectoryStatus } from "./directory-status";
import { duration, esc, when } from "./html";
import { page } from "./layout";

export { esc, page };

/** The address of a directory's page. */
export const directoryHref = (id: string) => `/admin/status/${encodeURIComponent(id)}`;

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

/** A resync's progress bar and summary. */
export function resyncCell(d: DirectoryStatus, now = new Date()): string {
  const r = d.resync;
  if (!r.status) return "never";
  const pct = resyncPercent(r);
  const summary = `created ${r.created}, updated ${r.updated}, deactivated ${r.deactivated}, deleted ${r.deleted}, unchanged ${r.unchanged}, failed ${r.failed}`;
  const state = r.status === "awaiting-confirmation" ? `<strong class="state failing">awaiting confirmation</strong> of ${r.held} deprovision(s)`
    : r.status === "running" ? `running (${esc(r.phase)})` : r.phase === "cancelled" ? "done (deprovisions cancelled)" : "done";
  return `<progress max="100" value="${pct}" aria-label="resync of ${esc(d.id)}">${pct}%</progress> <span class="resync-pct">${pct}%</span>
<div>${state}: ${summary}</div>${resyncRate(d, now)}`;
}

/** One button that posts an action of directory `id`. */
export function actionButton(id: string, path: string, label: string): string {
  return `<form method="post" action="/admin/directories/${esc(id)}/${path}">${formTokenField()}<button type="submit">${label}</button></form>`;
}

/** The buttons of a directory's actions. */
export function actions(d: DirectoryStatus): string {
  const btn = (path: string, label: string) => actionButton(d.id, path, label);
  const deleting = d.resync.purpose === "delete" && d.resync.status !== "done";
  const answerDelete = (field: "confirm" | "cancel", label: string) => `<form method="post" action="/admin/directories/${esc(d.id)}/delete">${formTokenField()}<input type="hidden" name="platform" value="deprovision"><input type="hidden" name="${field}" value="true"><button type="submit">${label}</button></form>`;
  const answer = d.resync.status !== "awaiting-confirmation" ? ""
    : deleting ? answerDelete("confirm", "Confirm: deprovision and delete") + answerDelete("cancel", "Cancel the delete")
    : btn("resync/confirm", "Confirm deprovisions") + btn("resync/cancel", "Cancel deprovisions");
  const onOff = d.disabled ? btn("enable", "Enable") : btn("disable", "Disable");
  // a disabled runtime directory can be deleted, on a page of its own (src/admin/delete-page.ts)
  const del = d.disabled && d.source === "runtime" && !deleting ? `<a href="/admin/status/${esc(d.id)}/delete" data-delete="${esc(d.id)}">Delete…</a>` : "";
  return [d.items.failed ? btn("retry", "Retry failed") : "", d.paused && !d.disabled ? btn("resume", "Resume") : "", answer,
    btn("resync", "Resync"), btn("resync?dryRun=true", "Dry run"), onOff, del].join("");
}

const itemRows = (items: PlanItem[]) => items.map((it) => `<tr><td>${esc(it.kind)}</td><td>${esc(it.name ?? "")}</td><td class="msg">${esc(it.id)}</td><td class="msg">${esc(it.platformId ?? "")}</td></tr>`).join("");

/** A table of plan items (the caller bounds the list). */
export function itemTable(items: PlanItem[], more = ""): string {
  return `<div class="scroll"><table><thead><tr><th>Kind</th><th>Name</th><th>Id</th><th>Platform id</th></tr></thead><tbody>${itemRows(items)}</tbody></table></div>${more}`;
}

/** A resync (or a delete) of `d` holding deprovisions: why, and the first 50 it would deprovision. */
export function awaitingSection(d: DirectoryStatus, held: PlanItem[]): string {
  const more = d.resync.held > 50 ? `<p>… and ${d.resync.held - 50} more (admin API: GET /admin/directories/${esc(d.id)}/resync)</p>` : "";
  return d.resync.purpose === "delete"
    ? `<section data-awaiting="${esc(d.id)}"><h3>${esc(d.id)}: delete awaits confirmation</h3>
<p>${esc(d.resync.holdReason)}. Nothing has been deprovisioned yet; these would be:</p>${itemTable(held.slice(0, 50), more)}</section>`
    : `<section data-awaiting="${esc(d.id)}"><h3>${esc(d.id)}: resync awaits confirmation</h3>
<p>${esc(d.resync.holdReason)}. Creates and updates were applied; these would be deprovisioned:</p>${itemTable(held.slice(0, 50), more)}</section>`;
}

/** The latest dry run: its counts, and links to the whole lists of planned changes (plan-page.ts). */
export function planSection(p: PlanReport): string {
  const link = (list: string, n: number, label: string) => (n ? `<a href="/admin/status/${esc(p.directory)}/plan?list=${list}" data-plan-list="${list}">${n} ${label}</a>` : `0 ${label}`);
  return `<section data-plan="${esc(p.directory)}"><h3>${esc(p.directory)}: latest dry run, ${when(p.at, new Date())} <span class="msg">${esc(p.at)}</span></h3>
<p>${link("create", p.counts.create, "to create")}, ${link("update", p.counts.update, "to update")}, ${p.counts.unchanged} unchanged, ${link("deprovision", p.counts.deprovision, "to deprovision")} of ${p.counts.managed} managed${p.wouldHold ? ` — a resync would wait for confirmation: ${esc(p.wouldHold)}` : ""}</p>
${p.deprovision.length ? itemTable(p.deprovision.slice(0, 50), p.counts.deprovision > 50 ? `<p><a href="/admin/status/${esc(p.directory)}/plan?list=deprovision">All ${p.counts.deprovision} deprovisions →</a></p>` : "") : ""}</section>`;
}

/** What a person sees once: the SCIM base URL and the first token of a directory made on the page. */
export function createdPage(id: string, scimBaseUrl: string, token: string): string {
  return page(`scim-bridge — ${id} created`, `<p><a href="/admin/status">← status</a> · <a href="${directoryHref(id)}">${esc(id)}</a></p><h1>Directory ${esc(id)} created</h1>
<p>Give the IdP these now. The token is shown this once: only its hash is kept.</p>
<table><tbody><tr><th>SCIM base URL</th><td class="msg" data-field="scim-base-url">${esc(scimBaseUrl)}</td></tr>
<tr><th>Bearer token</th><td class="msg" data-field="token">${esc(token)}</td></tr></tbody></table>`);
}
