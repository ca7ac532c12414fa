/**
 * One user's or group's sync state and activity trail, and the search that finds them:
 *   JSON  GET /admin/directories/:id/users/:itemId/activity    (and /groups/:itemId/activity)
 *         GET /admin/directories/:id/search?q=<text>           userName / displayName contains the text
 *   HTML  GET /admin/status/:id/users/:itemId                   (and /groups/:itemId): the item view
 *         GET /admin/status/:id/search?q=<text>
 *         GET /admin/status/:id/delete                         the delete of a disabled runtime directory (a form)
 */
import express, { type Router } from "express";
import type { OpsContext } from "./ops-context";
import { searchByName } from "../store";
import { type SyncKind } from "../sync/state/sync-state";
import { ActivityStore } from "../activity/activity-store";
import { itemBody, searchBody, type ItemView, type SearchHit } from "./item-page";
import { page } from "./layout";
import { newDirectoryPage } from "./new-directory-page";
import { deletePage } from "./delete-page";

const KINDS: Record<string, SyncKind> = { users: "user", groups: "group" };

async function loadItem(c: OpsContext, activity: ActivityStore, dir: string, kind: SyncKind, id: string): Promise<ItemView> {
  const [rec, st, events] = await Promise.all([
    kind === "user" ? c.users.get(dir, id) : c.groups.get(dir, id, false), c.state.get(dir, kind, id), activity.read(dir, kind, id),
  ]);
  const name = rec ? String((kind === "user" ? rec.body.userName : rec.body.displayName) ?? "") || null : null;
  return {
    directory: dir, kind, id, name, exists: !!rec, events,
    sync: { status: st.status ?? null, lastError: st.lastError ?? null, attempts: st.attempts, changedAt: st.changedAt ?? null, syncedAt: st.syncedAt ?? null, platformId: st.platformId ?? null },
  };
}

async function search(c: OpsContext, dir: string, q: string): Promise<SearchHit[]> {
  if (!q.trim()) return [];
  const hits = await searchByName(c.redis, c.config.redis.keyPrefix, dir, q, 50);
  // the index holds lower-case names: show them as the IdP sent them
  return Promise.all(hits.map(async (h) => {
    const rec = h.kind === "user" ? await c.users.get(dir, h.id) : await c.groups.get(dir, h.id, false);
    return { kind: h.kind, id: h.id, name: String((h.kind === "user" ? rec?.body.userName : rec?.body.displayName) ?? h.name) };
  }));
}

/** Routes under /admin/directories (JSON). */
export function itemApi(c: OpsContext): Router {
  const activity = new ActivityStore(c.redis, c.config.redis.keyPrefix, c.config.activity.maxEvents);
  const r = express.Router();
  r.param("id", (_req, res, next, id: string) => {
    if (!c.registry.get(id)) { res.status(404).json({ error: `unknown directory "${id}"` }); return; }
    next();
  });
  r.get("/:id/:kinds/:itemId/activity", async (req, res, next) => {
    const kind = KINDS[req.params.kinds];
    if (!kind) return next();
    res.json(await loadItem(c, activity, req.params.id, kind, req.params.itemId));
  });
  r.get("/:id/search", async (req, res) => {
    res.json(await search(c, req.params.id, String(req.query.q ?? "")));
  });
  return r;
}

/** Pages under /admin/status (HTML). */
export function itemPages(c: OpsContext): Router {
  const activity = new ActivityStore(c.redis, c.config.redis.keyPrefix, c.config.activity.maxEvents);
  const r = express.Router();
  r.param("id", (_req, res, next, id: string) => {
    if (!c.registry.get(id)) { res.status(404).type("html").send(page("not found", `<p>Unknown directory.</p><p><a href="/admin/status">← status</a></p>`)); return; }
    next();
  });
  r.get("/new", (_req, res) => { res.type("html").send(newDirectoryPage()); });
  r.get("/:id/delete", (req, res) => {
    const e = c.registry.get(req.params.id)!;
    if (e.source !== "runtime" || !e.disabled) {
      res.status(409).type("html").send(page("not deletable", `<p>Only a disabled runtime directory is deleted here: disable it first (a directory from config is removed from the config file).</p><p><a href="/admin/status">← status</a></p>`));
      return;
    }
    res.type("html").send(deletePage(req.params.id));
  });
  r.get("/:id/search", async (req, res) => {
    const q = String(req.query.q ?? "");
    res.type("html").send(page(`search ${req.params.id}`, searchBody(req.params.id, q, await search(c, req.params.id, q))));
  });
  r.get("/:id/:kinds/:itemId", async (req, res, next) => {
    const kind = KINDS[req.params.kinds];
    if (!kind) return next();
    const v = await loadItem(c, activity, req.params.id, kind, req.params.itemId);
    res.type("html").send(page(`${kind} ${v.name ?? v.id}`, itemBody(v, new Date())));
  });
  return r;
}
