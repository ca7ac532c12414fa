/**
 * A dry run's whole plan, one list at a time (to create, to update, to deprovision), PAGE items a page:
 * what a resync would change, item by item, before anyone runs it. The stored plan keeps up to
 * PLAN_LIST_MAX items per list (src/sync/resync.ts); the counts are always whole.
 */
import type { PlanReport } from "../sync/resync/resync";
import { esc, when } from "./html";
import { directoryHref, itemTable } from "./status-page";

export const PLAN_PAGE = 100;
export const PLAN_LISTS = ["create", "update", "deprovision"] as const;
export type PlanList = typeof PLAN_LISTS[number];

const LABEL: Record<PlanList, string> = { create: "To create", update: "To update", deprovision: "To deprovision" };

/** The body of one page of one list of `p`. */
export function planBody(p: PlanReport, list: PlanList, pageNo: number): string {
  const items = p[list];
  const pages = Math.max(1, Math.ceil(items.length / PLAN_PAGE));
  const n = Math.min(Math.max(1, pageNo), pages);
  const href = (l: PlanList, k = 1) => `/admin/status/${encodeURIComponent(p.directory)}/plan?list=${l}${k > 1 ? `&page=${k}` : ""}`;
  const tabs = PLAN_LISTS.map((l) => (l === list ? `<strong>${LABEL[l]} (${p.counts[l]})</strong>` : `<a href="${href(l)}">${LABEL[l]} (${p.counts[l]})</a>`)).join(" · ");
  const nav = pages > 1 ? `<p>Page ${n} of ${pages}: ${n > 1 ? `<a href="${href(list, n - 1)}" rel="prev">← previous</a> ` : ""}${n < pages ? `<a href="${href(list, n + 1)}" rel="next">next →</a>` : ""}</p>` : "";
  const cut = p.counts[list] > items.length ? `<p>The stored plan keeps the first ${items.length} of ${p.counts[list]}.</p>` : "";
  const first = (n - 1) * PLAN_PAGE;
  return `<p><a href="${directoryHref(p.directory)}">← ${esc(p.directory)}</a></p>
<h1>Dry run of ${esc(p.directory)}</h1><p>Computed ${when(p.at, new Date())} (<span class="msg">${esc(p.at)}</span>), asked by ${esc(p.requestedBy)}. Nothing was changed.
${p.counts.unchanged} unchanged, ${p.counts.managed} managed on the platform.${p.wouldHold ? ` A resync would wait for confirmation: ${esc(p.wouldHold)}` : ""}</p>
<p>${tabs}</p><h2 data-list="${list}">${LABEL[list]}: ${items.length ? `${first + 1}–${Math.min(first + PLAN_PAGE, items.length)} of ${p.counts[list]}` : "none"}</h2>
${items.length ? itemTable(items.slice(first, first + PLAN_PAGE)) : ""}${nav}${cut}`;
}
