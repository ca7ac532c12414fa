/**
 * /Users of one directory ([RFC7644§3.2–3.6]): answered from the store only, never from the platform.
 * PATCH applies SCIMMY's PatchOp to the stored resource after the dialect normaliser, then writes with a
 * compare-and-set on `meta.version`; a concurrent write makes it re-read and re-apply, so no update is lost.
 */
import { Router, type Request, type Response } from "express";
import SCIMMY from "scimmy";
import { StorePreconditionError, type UserRecord } from "../../store";
import { scimContext } from "../context";
import { ScimError } from "../errors";
import { normalisePatch, type PatchOperation } from "../dialects/patch-request";
import { addOnAbsentTarget, isValuePathAdd } from "../dialects/value-path-add";
import { parseProjection, project } from "../query/attributes";
import { listUsers } from "../query/list";
import { PATCH_SCHEMA, setupScimmy } from "../schemas";
import { expectedVersion, notModified } from "./conditional";
import { checkBody, userBody } from "./input";
import { listParams, searchParams, type ListParams } from "./query-params";
import { userResource } from "./representation";
import { sendList, sendResource } from "./respond";
import { toScimError } from "./store-errors";

type Json = Record<string, unknown>;
const MAX_CAS_ATTEMPTS = 16;

async function list(res: Response, p: ListParams): Promise<void> {
  const c = scimContext(res);
  const view = (r: UserRecord) => userResource(r, c.base);
  const out = await listUsers(c.users, c.directoryId, p.filter, p.paging, view);
  sendList(res, out.total, p.paging.startIndex, out.items.map((r) => project(view(r), p.projection)));
}

async function load(res: Response, id: string): Promise<UserRecord> {
  const c = scimContext(res);
  const rec = await c.users.get(c.directoryId, id);
  if (!rec) throw new ScimError(404, undefined, `Resource ${id} not found`);
  return rec;
}

function respondWith(req: Request, res: Response, rec: UserRecord, status: number): void {
  const c = scimContext(res);
  const full = userResource(rec, c.base);
  const projection = parseProjection(req.query.attributes, req.query.excludedAttributes);
  sendResource(res, status, project(full, projection), rec.version, status === 201 ? String((full.meta as Json).location) : undefined);
}

/** SCIMMY's PatchOp over a stored user; undefined when nothing changes. */
async function patchWithScimmy(rec: UserRecord, ops: PatchOperation[]): Promise<unknown> {
  setupScimmy();
  const current = new SCIMMY.Schemas.User({ ...rec.body, id: rec.id, meta: { resourceType: "User" } }, "out");
  return new SCIMMY.Messages.PatchOp({ schemas: [PATCH_SCHEMA], Operations: ops })
    .apply(current, async (instance: unknown) => instance as never);
}

/** Applies normalised PATCH operations to a stored user; undefined when nothing changes. */
async function applyPatch(rec: UserRecord, ops: PatchOperation[]): Promise<Json | undefined> {
  // an add on a value-filter path that matches nothing adds the element (value-path-add.ts); whether it
  // matches depends on the operations before it, so those are applied first, then all ops in one PatchOp
  const ready: PatchOperation[] = [];
  for (const op of ops) {
    if (!isValuePathAdd(op)) { ready.push(op); continue; }
    const before = ready.length ? await patchWithScimmy(rec, ready) : undefined;
    ready.push(addOnAbsentTarget("User", op, before ? JSON.parse(JSON.stringify(before)) as Json : rec.body));
  }
  const patched = await patchWithScimmy(rec, ready);
  if (!patched) return undefined;
  const body = JSON.parse(JSON.stringify(patched)) as Json;
  delete body.id;
  delete body.meta;
  delete body.groups;
  if (JSON.stringify(body) === JSON.stringify(rec.body)) return undefined;
  checkBody("User", body);
  return body;
}

/** The /Users router (mounted under the directory router). */
export function usersRouter(): Router {
  const r = Router({ mergeParams: true });

  r.get("/", async (req, res) => list(res, listParams(req.query as Record<string, unknown>, scimContext(res).settings)));
  r.post("/.search", async (req, res) => list(res, searchParams(req.body, scimContext(res).settings)));

  r.get("/:id", async (req, res) => {
    const rec = await load(res, req.params.id);
    if (notModified(req, rec.version)) { res.setHeader("ETag", `W/"${rec.version}"`); res.status(304).end(); return; }
    respondWith(req, res, rec, 200);
  });

  r.post("/", async (req, res) => {
    const c = scimContext(res);
    const body = userBody(req.body);
    const id = crypto.randomUUID();
    let meta;
    try {
      meta = await c.users.write(c.directoryId, id, body, "create");
    } catch (err) { throw toScimError(err); }
    // a new user is in no group yet (User.groups is read-only), so the write's meta is the whole record
    respondWith(req, res, { id, body, groups: [], version: meta.version, created: meta.created, lastModified: meta.lastModified }, 201);
  });

  r.put("/:id", async (req, res) => {
    const c = scimContext(res);
    const body = userBody(req.body);
    try {
      await c.users.write(c.directoryId, req.params.id, body, "update", expectedVersion(req));
    } catch (err) { throw toScimError(err); }
    respondWith(req, res, await load(res, req.params.id), 200);
  });

  r.patch("/:id", async (req, res) => {
    const c = scimContext(res);
    const ops = normalisePatch("User", req.body);
    for (let attempt = 1; ; attempt++) {
      const rec = await load(res, req.params.id);
      const expected = expectedVersion(req, rec.version);
      const body = ops.length ? await applyPatch(rec, ops) : undefined;
      if (!body) return respondWith(req, res, rec, 200);
      try {
        await c.users.write(c.directoryId, rec.id, body, "update", expected ?? rec.version);
        return respondWith(req, res, await load(res, rec.id), 200);
      } catch (err) {
        // lost a race with another write: re-read and re-apply, unless the client pinned a version
        if (err instanceof StorePreconditionError && expected === undefined && attempt < MAX_CAS_ATTEMPTS) continue;
        throw toScimError(err);
      }
    }
  });

  r.delete("/:id", async (req, res) => {
    const c = scimContext(res);
    try {
      await c.users.delete(c.directoryId, req.params.id, expectedVersion(req));
    } catch (err) { throw toScimError(err); }
    res.status(204).end();
  });

  r.all("/{*rest}", (req) => {
    throw new ScimError(405, undefined, `Method ${req.method} is not supported on this endpoint`);
  });
  return r;
}
