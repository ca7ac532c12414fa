/**
 * The deprovision brake's endpoints of the admin API (mounted under /admin/directories, after the `:id`
 * check; the brake itself: src/sync/brake/brake.ts):
 *   GET  /:id/brake            state ("holding" | "clear"), held and counted numbers, limits, the held list
 *                              (first 1,000) and the audit (holds, confirmations, cancellations)
 *   POST /:id/brake            `{"action": "confirm" | "cancel", "by": "<name>"}`: confirm applies every held
 *                              deprovision (202 `{confirmed}`), cancel releases them (200 `{cancelled}`: they stay
 *                              active on the platform until the IdP changes them again); 409 when nothing is held
 * A form POST (the status page) is answered with a redirect to the directory's page, with the outcome (feedback.ts).
 */
import express, { type Router } from "express";
import type { Logger } from "pino";
import type { OpsContext } from "./ops-context";
import { answerBrake, brakeStatus } from "../sync/brake/brake";
import { operator } from "./resync-routes";
import { answer } from "./feedback";
import { directoryHref } from "./status-page";

/** Brake routes; `knownId` answers 404 for a directory the bridge does not have. */
export function brakeRoutes(c: OpsContext, knownId: express.RequestParamHandler, logger?: Logger): Router {
  const r = express.Router();
  r.param("id", knownId);
  const prefix = c.config.redis.keyPrefix;
  r.get("/:id/brake", async (req, res) => {
    res.json(await brakeStatus(c.redis, prefix, c.registry.get(req.params.id)!.dir));
  });
  r.post("/:id/brake", async (req, res) => {
    const action = req.body?.action;
    if (action !== "confirm" && action !== "cancel") { res.status(400).json({ error: "action must be \"confirm\" or \"cancel\"" }); return; }
    const dir = req.params.id;
    const a = await answerBrake({ redis: c.redis, keyPrefix: prefix, logger, enqueue: (d, kind, id) => c.queues.enqueue(d, kind, id) }, dir, action, operator(req));
    if (!a.answered) { answer(req, res, 409, { error: a.reason }, directoryHref(dir), ""); return; }
    answer(req, res, action === "confirm" ? 202 : 200, action === "confirm" ? { confirmed: a.count } : { cancelled: a.count }, directoryHref(dir),
      action === "confirm" ? `Confirmed: ${a.count} held deprovision(s) of ${dir} are applied now.` : `Cancelled: ${a.count} held deprovision(s) of ${dir} released; those users stay active on the platform.`);
  });
  return r;
}
