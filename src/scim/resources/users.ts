/**
 * /Users of one directory ([RFC7644§3.2–3.6]): answered from the store only, never from the platform.
 * PATCH applies SCIMMY's PatchOp to the stored resource after the dialect normaliser, then writes with a
 * compare-and-set on `meta.version`; a concurrent write makes it re-read and re-apply, so no update is lost.
 */
import { Router, type Request, type Response } from "express";
import { StorePreconditionError, type UserRecord } from "../../store";
import { scimContext } from "../context";
import { ScimError } from "../errors";
import { normalisePatch, type PatchOperation } from "../dialects/patch-request";
import { parseProjection, project } from "../query/attributes";
import { expectedVersion, notModified } from "./conditional";
import { userBody } from "./input";
import { applyUserPatch } from "./user-patch";
import { userSource } from "./list-sources";
import { sendListPage } from "./list-page";
import { listParams, searchParams, type ListParams } from "./query-params";
import { userResource } from "./representation";
import { sendResource } from "./respond";
import { toScimError } from "./store-errors";
import { handleIgnored } from "../extensions/ignored";
import { patchTarget } from "../extensions/patch";

type Json = Record<string, unknown>;
const MAX_CAS_ATTEMPTS = 16;

/** The paths an ignored operation names: each attribute of an unknown extension's object value, else its path. */
function ignoredPaths(op: PatchOperation): string[] {
  const path = op.path!.trim();
  const v = op.value;
  if (!/^urn:/i.test(path) || !v || typeof v !== "object" || Array.isArray(v)) return [path];
  const names = Object.keys(v as Json).filter((k) => k.toLowerCase() !== "schemas");
  return names.length ? names.map((k) => `${path}:${k}`) : [path];
}

async function list(res: Response, p: ListParams): Promise<void> {
  const c = scimContext(res);
  await sendListPage(res, c, "Users", [userSource(c)], p, (x) => project(userResource(x.rec as UserRecord, c.base), p.projection));
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
    const { body, ignored } = userBody(req.body, c.settings.maxIdentifierLength);
    handleIgnored(res, ignored, "invalidSyntax");
    let meta: Awaited<ReturnType<typeof c.users.write>> | undefined;
    let created: { id: string; earlier: boolean };
    try {
      // the user's write script checks the lost-create fingerprint itself: a POST is one round trip
      created = await c.lostCreates.create(c.directoryId, "u", req.body, async (u) => !!(await c.users.get(c.directoryId, u)), async (u, lostCreate) => {
        meta = await c.users.write(c.directoryId, u, body, "create", undefined, { ...c.writeOptions, lostCreate });
      }, true);
    } catch (err) { throw toScimError(err); }
    const { id } = created;
    // an earlier attempt of this create (its answer lost) made the user: answer it as it is now
    if (created.earlier || !meta) return respondWith(req, res, await load(res, id), 201);
    // a new user is in no group yet (User.groups is read-only), so the write's meta is the whole record
    respondWith(req, res, { id, body, groups: [], version: meta.version, created: meta.created, lastModified: meta.lastModified }, 201);
  });

  r.put("/:id", async (req, res) => {
    const c = scimContext(res);
    const { body, ignored } = userBody(req.body, c.settings.maxIdentifierLength);
    handleIgnored(res, ignored, "invalidSyntax");
    try {
      await c.users.write(c.directoryId, req.params.id, body, "update", expectedVersion(req), c.writeOptions);
    } catch (err) { throw toScimError(err); }
    respondWith(req, res, await load(res, req.params.id), 200);
  });

  r.patch("/:id", async (req, res) => {
    const c = scimContext(res);
    const all = normalisePatch("User", req.body, c.settings.maxPatchOperations);
    const ops = all.filter((op) => patchTarget(c.extensions, op) !== "ignored");
    handleIgnored(res, all.filter((op) => !ops.includes(op)).flatMap(ignoredPaths), "invalidPath");
    for (let attempt = 1; ; attempt++) {
      const rec = await load(res, req.params.id);
      const expected = expectedVersion(req, rec.version);
      const body = ops.length ? await applyUserPatch(rec, ops, c.extensions, c.settings.maxIdentifierLength) : undefined;
      if (!body) return respondWith(req, res, rec, 200);
      try {
        const meta = await c.users.write(c.directoryId, rec.id, body, "update", expected ?? rec.version, c.writeOptions);
        // the write replaced the body the read had, at that read's version (compare-and-set): the record is
        // the read's with the new body and meta, without reading it again (User.groups is read-only)
        return respondWith(req, res, { ...rec, body, version: meta.version, lastModified: meta.lastModified }, 200);
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
