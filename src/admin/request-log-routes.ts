/**
 * A directory's SCIM request log on the admin API (mounted under /admin/directories, after the sign-in):
 *   GET /:id/requests               {"requests": […], "next": <cursor>|null}, newest first; filters status,
 *                                   method, resource, since, until, q, limit, cursor (src/scim/request-log/request-log-query.ts)
 *   GET /:id/requests/:requestId    one request (404 when it is not, or no longer, kept)
 * and the same as pages of the status page (`requestLogPages`, mounted under /admin/status):
 *   GET /:id/requests[?filters]  and  GET /:id/requests/:requestId
 */
import express, { type Router } from "express";
import type { OpsContext } from "./ops-context";
import { RequestLogStore } from "../scim/request-log/request-log-store";
import { RequestLogFilterError, requestLogQuery, type RequestLogFilters } from "../scim/request-log/request-log-query";
import { requestDetailBody, requestListBody } from "./request-log-page";
import { page } from "./layout";
import { esc } from "./html";

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

/** The status page's request-log pages (mounted under /admin/status). */
export function requestLogPages(c: OpsContext): Router {
  const r = express.Router();
  const store = new RequestLogStore(c.redis, c.config.redis.keyPrefix);
  r.get("/:id/requests", async (req, res) => {
    const id = String(req.params.id);
    if (!c.registry.get(id)) { res.status(404).type("html").send(page("scim-bridge — not found", `<p>No directory "${esc(id)}".</p>`)); return; }
    const filters = Object.fromEntries(Object.entries(req.query).filter(([, v]) => typeof v === "string" && v !== "")) as RequestLogFilters;
    try {
      const { requests, next } = await store.page(id, requestLogQuery(filters));
      res.type("html").send(page(`scim-bridge — requests of ${id}`, requestListBody(id, filters, requests, next)));
    } catch (err) {
      if (!(err instanceof RequestLogFilterError)) throw err;
      res.status(400).type("html").send(page(`scim-bridge — requests of ${id}`, requestListBody(id, filters, [], null, err.message)));
    }
  });
  r.get("/:id/requests/:requestId", async (req, res) => {
    const id = String(req.params.id);
    const entry = c.registry.get(id) ? await store.byRequestId(id, String(req.params.requestId)) : undefined;
    if (!entry) { res.status(404).type("html").send(page("scim-bridge — not found", "<p>That request is not in the log (not logged, or trimmed).</p><p><a href=\"/admin/status\">← status</a></p>")); return; }
    res.type("html").send(page(`scim-bridge — request ${entry.requestId}`, requestDetailBody(id, entry)));
  });
  return r;
}
