/**
 * The resync endpoints of the admin API (mounted under /admin/directories, after the `:id` check):
 *   POST /:id/resync                  start a full resync (202; 409 while one runs or awaits confirmation);
 *                                     `?dryRun=true` (or `{"dryRun": true}`): compute the plan only (202 with its id)
 *   GET  /:id/resync                  progress and final summary; while it awaits confirmation, `deprovisions`
 *                                     lists what it would deprovision
 *   GET  /:id/resync/plan             the latest dry run's report (404 before the first)
 *   POST /:id/resync/confirm          deprovision what the resync holds, re-checked against the present (202
 *                                     `{confirmed, dropped, resync}`: `dropped` the IdP pushed again since the hold);
 *                                     `{"by": "<name>", "resync": "<id>"}` optional
 *   POST /:id/resync/cancel           drop what it holds; nothing is deprovisioned
 *   GET  /:id/resync/audit            holds, confirmations and cancellations, newest first (who, when, how many)
 * A form POST (the status page) is answered with a redirect to the directory's page, with the outcome (feedback.ts).
 */
import { randomUUID } from "node:crypto";
import express, { type Request, type Router } from "express";
import type { Logger } from "pino";
import type { OpsContext } from "./ops-context";
import { answerResync } from "../sync/resync/confirm";
import { answer } from "./feedback";
import { directoryHref } from "./status-page";

/** "Who" for the audit: the name the operator gives (printable, ≤ 100 characters), the channel, the address. */
export function operator(req: Request): string {
  const given = typeof req.body?.by === "string" ? req.body.by.replace(/[^\x20-\x7e]/g, "").trim().slice(0, 100) : "";
  const channel = req.is("application/x-www-form-urlencoded") ? "status page" : "admin API";
  return `${given || "operator"} (${channel} from ${req.ip ?? "unknown"})`;
}

const flag = (v: unknown) => v === true || v === "true" || v === "1" || v === "on";

/** Resync routes; `knownId` answers 404 for a directory the bridge does not have. */
export function resyncRoutes(c: OpsContext, knownId: express.RequestParamHandler, logger?: Logger): Router {
  const r = express.Router();
  r.param("id", knownId);
  const prefix = c.config.redis.keyPrefix;
  r.post("/:id/resync", async (req, res) => {
    const dir = req.params.id;
    if (flag(req.query.dryRun) || flag(req.body?.dryRun)) {
      const plan = randomUUID();
      await c.queues.enqueueResync(dir, operator(req), { dryRun: plan });
      answer(req, res, 202, { status: "queued", dryRun: true, plan, report: `/admin/directories/${dir}/resync/plan` }, directoryHref(dir),
        `Dry run of ${dir} queued: its plan shows under "Dry run" when a worker has computed it. Nothing is changed.`);
      return;
    }
    const progress = await c.resyncs.progress(dir);
    if (progress.status === "running") { answer(req, res, 409, { error: "a resync of this directory is running", progress }, directoryHref(dir), ""); return; }
    if (progress.status === "awaiting-confirmation") {
      answer(req, res, 409, { error: "a resync of this directory awaits confirmation of its deprovisions: confirm or cancel it first", progress }, directoryHref(dir), "");
      return;
    }
    await c.queues.enqueueResync(dir, "admin-api");
    answer(req, res, 202, { status: "queued", progress: `/admin/directories/${dir}/resync` }, directoryHref(dir), `Resync of ${dir} queued: its progress shows under "Resync".`);
  });
  r.get("/:id/resync", async (req, res) => {
    const p = await c.resyncs.progress(req.params.id);
    res.json(p.status === "awaiting-confirmation" ? { ...p, deprovisions: await c.resyncs.held(req.params.id) } : p);
  });
  r.get("/:id/resync/plan", async (req, res) => {
    const plan = await c.resyncs.plan(req.params.id);
    if (!plan) { res.status(404).json({ error: "no dry run of this directory yet: POST /admin/directories/<id>/resync?dryRun=true" }); return; }
    res.json(plan);
  });
  r.get("/:id/resync/audit", async (req, res) => { res.json(await c.resyncs.audit(req.params.id)); });
  for (const action of ["confirm", "cancel"] as const) {
    r.post(`/:id/resync/${action}`, async (req, res) => {
      const expect = typeof req.body?.resync === "string" ? req.body.resync : "";
      const a = await answerResync({ redis: c.redis, keyPrefix: prefix, queues: c.queues, logger, directory: (id) => c.registry.get(id)?.dir }, req.params.id, action, operator(req), expect);
      const dir = req.params.id;
      if (!a.answered) { answer(req, res, 409, { error: a.reason }, directoryHref(dir), ""); return; }
      answer(req, res, action === "confirm" ? 202 : 200, action === "confirm" ? { confirmed: a.count, dropped: a.dropped ?? 0, resync: a.resync } : { cancelled: a.count, resync: a.resync }, directoryHref(dir),
        action === "confirm" ? `Confirmed: ${a.count} deprovision(s) of ${dir} are applied now${a.dropped ? ` (${a.dropped} dropped: the IdP pushed them again since)` : ""}.` : `Cancelled: nothing of ${dir} was deprovisioned.`);
    });
  }
  return r;
}
