/**
 * Embed-tenant admin endpoints under `/api/v1/embed-tenants/{embedTenantName}`: groups list (cursor
 * pagination `first` / `after` → `{items, pageInfo: {hasNextPage, endCursor}}`), group delete, tenant
 * delete. An unknown tenant lists no groups; deleting an unknown group or tenant is 404; deletes answer 204.
 */
import { Router, type Request } from "express";
import type { SimConfig } from "../config";
import { SimError } from "../sim-error";
import type { SimState } from "../state";

const encodeCursor = (id: number) => Buffer.from(`g:${id}`).toString("base64url");
function decodeCursor(cursor: string): number {
  const m = /^g:(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!m) throw new SimError(400, "after is not a valid cursor");
  return Number(m[1]);
}

/** Router mounted at `/v1/embed-tenants`. */
export function embedTenantsRouter(state: SimState, config: SimConfig): Router {
  const r = Router();
  const hit = (req: Request, route: string) => state.counters.hit(req.method, `/v1/embed-tenants/:embedTenantName${route}`);

  r.get("/:name/groups", (req, res) => {
    hit(req, "/groups");
    const rawFirst = req.query.first;
    const first = rawFirst === undefined ? config.paging.cursorDefaultFirst : Number(rawFirst);
    if (!Number.isInteger(first) || first < 1 || first > config.paging.cursorMaxFirst) {
      throw new SimError(400, `first must be an integer from 1 to ${config.paging.cursorMaxFirst}`);
    }
    const after = typeof req.query.after === "string" && req.query.after ? decodeCursor(req.query.after) : 0;
    const all = [...(state.tenants.get(req.params.name)?.groups.values() ?? [])].sort((a, b) => a.id - b.id).filter((g) => g.id > after);
    const items = all.slice(0, first);
    const last = items[items.length - 1];
    res.json({ items, pageInfo: { hasNextPage: all.length > first, endCursor: last ? encodeCursor(last.id) : null } });
  });

  r.delete("/:name/groups/:id", (req, res) => {
    hit(req, "/groups/:id");
    const t = state.tenants.get(req.params.name);
    const g = t && [...t.groups.values()].find((x) => String(x.id) === req.params.id);
    if (!t || !g) throw new SimError(404, `group ${req.params.id} not found in embed tenant ${req.params.name}`);
    t.groups.delete(g.name);
    for (const u of t.externalUsers.values()) u.groups = u.groups.filter((n) => n !== g.name);
    res.status(204).end();
  });

  r.delete("/:name", (req, res) => {
    hit(req, "/");
    if (!state.tenants.delete(req.params.name)) throw new SimError(404, `embed tenant ${req.params.name} not found`);
    res.status(204).end();
  });
  return r;
}
