/**
 * "Why isn't this on the platform?" and "sync it now" on the status pages, for one user or group (the
 * logic: src/explain/): the explanation — what holds it, in words, and the action that clears it; the
 * desired payload, the last applied, the platform's live record and their differences; where it stands
 * in line — and a sync-now's run, each step with its result (like Entra's provision on demand).
 *   GET  /:id/:kinds/:itemId/explain     the explanation (one platform read)
 *   POST /:id/:kinds/:itemId/sync-now    runs its reconcile now and shows each step (a form of the item view)
 * Mounted under /admin/status after the sign-in and the forgery guard.
 */
import express, { type Router } from "express";
import type { Logger } from "pino";
import type { OpsContext } from "./ops-context";
import { explain, UnknownResourceError, type Explanation } from "../explain/explain";
import { explainDeps } from "../explain/ops-deps";
import { syncNow, SyncNowRefused, type SyncNowResult } from "../explain/sync-now";
import { esc, when } from "./html";
import { itemHref, syncNowForm } from "./item-page";
import { page } from "./layout";
import { operator } from "./resync-routes";

const json = (v: unknown) => `<pre class="msg">${esc(JSON.stringify(v, null, 2))}</pre>`;

function standingText(x: Explanation): string {
  const q = x.queue;
  const parts = [q.ahead !== null ? `in the backlog, ${q.ahead} ahead of it (of ${q.backlog})` : `${q.backlog} in the directory's backlog`,
    `${q.running} running`, `${q.outbox} in the outbox`];
  if (q.inFlightSince) parts.push(`running since ${q.inFlightSince}`);
  if (q.retryingSince) parts.push(`waiting out a retry since ${q.retryingSince}`);
  if (q.heldUntil) parts.push(`the platform asked to wait until ${q.heldUntil}`);
  return parts.join(", ");
}

/** The explanation's page body. */
export function explainBody(x: Explanation, now: Date): string {
  const r = x.resource;
  const diffs = x.differences.length
    ? `<div class="scroll"><table data-differences><thead><tr><th>Attribute</th><th>Desired</th><th>On the platform</th></tr></thead><tbody>${x.differences.map((d) => `<tr><td class="msg">${esc(d.attribute)}</td><td class="msg">${esc(JSON.stringify(d.desired))}</td><td class="msg">${esc(JSON.stringify(d.platform))}</td></tr>`).join("")}</tbody></table></div>`
    : `<p>${x.platform.read ? "None: the platform holds what the IdP asks for." : "Not compared: the platform was not read."}</p>`;
  return `<p><a href="${itemHref(x.directory, r.kind, r.id)}">← ${esc(r.kind)} ${esc(r.name ?? r.id)}</a></p>
<h1>Why is ${esc(r.kind)} ${esc(r.name ?? r.id)} ${x.blocker.code === "in-sync" ? "in sync" : "not in sync"}?</h1>
<section data-blocker="${esc(x.blocker.code)}" class="notice ${x.blocker.code === "in-sync" ? "ok" : "error"}"><p><strong>${esc(x.blocker.message)}</strong></p>
<p>What clears it: ${esc(x.blocker.action)}</p></section>${syncNowForm(x.directory, r.kind, r.id)}
<dl class="facts"><dt>Read</dt><dd>${when(x.at, now)}</dd><dt>In the IdP</dt><dd>${r.existsInIdp ? "yes" : "no (deleted there)"}</dd>
<dt>Sync status</dt><dd>${esc(x.sync.status ?? "none")}${x.sync.lastError ? ` <span class="msg">${esc(x.sync.lastError)}</span>` : ""}, ${x.sync.attempts} attempt(s)</dd>
<dt>Queue</dt><dd>${esc(standingText(x))}</dd>
<dt>Last applied</dt><dd>${x.lastApplied.at ? when(x.lastApplied.at, now) : "never"}${x.lastApplied.hash ? `, ${x.lastApplied.matchesDesired ? "the same as" : "different from"} what the IdP asks for now` : ""}</dd>
<dt>Platform id</dt><dd class="msg">${esc(x.lastApplied.platformId ?? "—")}</dd></dl>
<h2>Differences</h2>${diffs}
<h2>Desired (what the bridge would send)</h2>${x.desired ? json(x.desired) : "<p>Nothing: the IdP deleted it.</p>"}
<h2>On the platform (one read)</h2>${x.platform.read ? (x.platform.record ? json(x.platform.record) : "<p>Not found there.</p>") : `<p>Not read: ${esc(x.platform.why ?? x.platform.error ?? "")}</p>`}`;
}

/** A sync-now run's page body. */
export function syncNowBody(s: SyncNowResult): string {
  const r = s.resource;
  const steps = s.steps.map((st) => `<li data-step="${esc(st.step)}" class="${st.ok ? "" : "ev-failed"}">${st.ok ? "✓" : "✗"} <strong>${esc(st.step)}</strong>${st.method ? ` ${esc(st.method)} <span class="msg">${esc(st.path ?? "")}</span>` : ""}${st.status ? ` → ${st.status}` : ""}${st.durationMs !== undefined ? ` (${st.durationMs} ms)` : ""}: ${esc(st.detail)}</li>`).join("");
  const ok = s.outcome !== "error";
  return `<p><a href="${itemHref(s.directory, r.kind, r.id)}">← ${esc(r.kind)} ${esc(r.name ?? r.id)}</a></p>
<h1>Sync now: ${esc(r.kind)} ${esc(r.name ?? r.id)}</h1>
<p class="notice ${ok ? "ok" : "error"}" role="${ok ? "status" : "alert"}" data-outcome="${esc(s.outcome)}">${ok ? `Done: ${esc(s.outcome)}.` : `Failed: ${esc(s.error?.message ?? "")} (${esc(s.error?.verdict ?? "")})`}</p>
<p>Before the run: ${esc(s.before.message)}</p><h2>Steps</h2><ol class="timeline" data-steps>${steps}</ol>
<p>Sync status now: <strong>${esc(s.sync.status ?? "none")}</strong>. <a href="${itemHref(s.directory, r.kind, r.id)}/explain">Explain again</a></p>`;
}

const KINDS: Record<string, "user" | "group"> = { users: "user", groups: "group" };

/** The pages (mount under /admin/status). */
export function explainPages(c: OpsContext, logger?: Logger): Router {
  const r = express.Router();
  const deps = explainDeps(c, logger);
  const back = (dir: string, kind: string, id: string, text: string) => `<p role="alert" class="notice error">${esc(text)}</p><p><a href="${itemHref(dir, kind, id)}">← back</a></p>`;
  r.get("/:id/:kinds/:itemId/explain", async (req, res, next) => {
    const { id, kinds, itemId } = req.params;
    const kind = KINDS[kinds];
    if (!kind || !c.registry.get(id)) return next();
    try {
      res.type("html").send(page(`scim-bridge — explain ${itemId}`, explainBody(await explain(deps, id, itemId), new Date())));
    } catch (err) {
      if (!(err instanceof UnknownResourceError)) throw err;
      res.status(404).type("html").send(page("scim-bridge — not found", back(id, kind, itemId, err.message)));
    }
  });
  r.post("/:id/:kinds/:itemId/sync-now", async (req, res, next) => {
    const { id, kinds, itemId } = req.params;
    const kind = KINDS[kinds];
    if (!kind || !c.registry.get(id)) return next();
    try {
      // answered with the run's report, not a redirect: the run is the answer (reloading runs it again)
      res.type("html").send(page(`scim-bridge — sync now ${itemId}`, syncNowBody(await syncNow(deps, id, itemId, operator(req)))));
    } catch (err) {
      if (err instanceof UnknownResourceError) { res.status(404).type("html").send(page("scim-bridge — not found", back(id, kind, itemId, err.message))); return; }
      if (err instanceof SyncNowRefused) { res.status(409).type("html").send(page("scim-bridge — not now", back(id, kind, itemId, `Not run: ${err.message}`))); return; }
      throw err;
    }
  });
  return r;
}
