/**
 * "Why isn't this resource on the platform?" and "sync it now", in the admin API (mounted under
 * /admin/directories after the `:id` check; the logic: src/explain/):
 *   GET  /:id/explain?resource=<id|userName|displayName>   200 the explanation (explain.ts `Explanation`):
 *        desired payload, last applied, the platform's live record (one read), differences, queue standing,
 *        `blocker` {code, message, action}; 400 without `resource`; 404 for a resource neither side knows
 *   POST /:id/sync-now  {"resource": "<id|userName|displayName>", "by"?: "<name>"}   200 the run (sync-now.ts
 *        `SyncNowResult`): each step's result and the outcome; 409 while its reconcile runs elsewhere or the
 *        directory is disabled; a form POST is answered with a redirect to the resource's page
 */
import express, { type Router } from "express";
import type { Logger } from "pino";
import type { OpsContext } from "./ops-context";
import { explain, UnknownResourceError } from "../explain/explain";
import { explainDeps } from "../explain/ops-deps";
import { syncNow, SyncNowRefused } from "../explain/sync-now";
import { operator } from "./resync-routes";

/** The routes; `knownId` answers 404 for a directory the bridge does not have. */
export function explainRoutes(c: OpsContext, knownId: express.RequestParamHandler, logger?: Logger): Router {
  const r = express.Router();
  r.param("id", knownId);
  const deps = explainDeps(c, logger);
  r.get("/:id/explain", async (req, res) => {
    const resource = typeof req.query.resource === "string" ? req.query.resource : "";
    if (!resource.trim()) { res.status(400).json({ error: "resource is required: ?resource=<SCIM id, userName or group displayName>" }); return; }
    try {
      res.json(await explain(deps, req.params.id, resource));
    } catch (err) {
      if (err instanceof UnknownResourceError) { res.status(404).json({ error: err.message }); return; }
      throw err;
    }
  });
  r.post("/:id/sync-now", async (req, res) => {
    const resource = typeof req.body?.resource === "string" ? req.body.resource : "";
    if (!resource.trim()) { res.status(400).json({ error: "resource is required: {\"resource\": \"<SCIM id, userName or group displayName>\"}" }); return; }
    try {
      const result = await syncNow(deps, req.params.id, resource, operator(req));
      if (req.is("application/x-www-form-urlencoded")) {
        res.redirect(303, `/admin/status/${encodeURIComponent(req.params.id)}/${result.resource.kind}s/${encodeURIComponent(result.resource.id)}`);
        return;
      }
      res.json(result);
    } catch (err) {
      if (err instanceof UnknownResourceError) { res.status(404).json({ error: err.message }); return; }
      if (err instanceof SyncNowRefused) { res.status(409).json({ error: err.message }); return; }
      throw err;
    }
  });
  return r;
}
