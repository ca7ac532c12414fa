/**
 * A directory's SCIM request log on the admin API (mounted under /admin/directories, after the sign-in):
 *   GET /:id/requests               {"requests": […], "next": <cursor>|null}, newest first; filters status,
 *                                   method, resource, since, until, q, limit, cursor (src/scim/request-log/request-log-query.ts)
 *   GET /:id/requests/:requestId    one request (404 when it is not, or no longer, kept)
 */
import express, { type Router } from "express";
import type { OpsContext } from "../ops/ops-context";
import { RequestLogStore } from "../scim/request-log/request-log-store";
import { RequestLogFilterError, requestLogQuery, type RequestLogFilters } from "../scim/request-log/request-log-query";

export function requestLogRoutes(c: OpsContext): Router {
  const r = express.Router();
  const store = new RequestLogStore(c.redis, c.config.redis.keyPrefix);
  const known = (id: string) => !!c.registry.get(id);
  r.get("/:id/requests", async (req, res) => {
    const id = String(req.params.id);
    if (!known(id)) { res.status(404).json({ error: `unknown directory "${id}"` }); return; }
    const filters = Object.fromEntries(Object.entries(req.query).filter(([, v]) => typeof v === "string")) as RequestLogFilters;
    let query;
    try {
      query = requestLogQuery(filters);
    } catch (err) {
      if (!(err instanceof RequestLogFilterError)) throw err;
      res.status(400).json({ error: err.message });
      return;
    }
    res.json(await store.page(id, query));
  });
  r.get("/:id/requests/:requestId", async (req, res) => {
    const id = String(req.params.id);
    if (!known(id)) { res.status(404).json({ error: `unknown directory "${id}"` }); return; }
    const entry = await store.byRequestId(id, String(req.params.requestId));
    if (!entry) { res.status(404).json({ error: `no request "${req.params.requestId}" in the log of "${id}" (not logged, or trimmed)` }); return; }
    res.json(entry);
  });
  return r;
}
