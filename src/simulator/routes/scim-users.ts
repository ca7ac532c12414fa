/**
 * Platform SCIM Users at `/api/scim/v2/Users`: POST, GET (list with `startIndex`/`count` and
 * `filter=userName eq "…"`), GET by id, PUT, PATCH, DELETE. `userName` is unique case-insensitively (409).
 */
import { randomUUID } from "node:crypto";
import { Router, type Request } from "express";
import type { SimState, ScimResource } from "../state";
import { SimError } from "../sim-error";
import { parseEqFilter } from "../scim/filter";
import { listResponse, readPaging } from "../scim/list";
import { readPatchOperations } from "../scim/patch-op";
import { removePath, setPath } from "../scim/resource-path";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";

/** Router for `/Users`. */
export function scimUsersRouter(state: SimState): Router {
  const r = Router();
  const hit = (route: string) => (req: Request) => state.counters.hit(req.method, `/scim/v2/Users${route}`);
  const find = (id: string) => {
    const u = state.users.get(id);
    if (!u) throw new SimError(404, `User ${id} not found`);
    return u;
  };
  const send = (res: import("express").Response, status: number, body: unknown) =>
    res.status(status).type("application/scim+json").send(JSON.stringify(body));

  r.post("/", (req, res) => {
    hit("")(req);
    const now = new Date().toISOString();
    const user = sanitize(req.body);
    const id = randomUUID();
    claimUserName(state, user.userName as string, id);
    const stored: ScimResource = { schemas: [USER], active: true, ...user, id, meta: { resourceType: "User", created: now, lastModified: now, location: `/api/scim/v2/Users/${id}`, version: 'W/"1"' } };
    state.users.set(id, stored);
    send(res, 201, stored);
  });

  r.get("/", (req, res) => {
    hit("")(req);
    const { startIndex, count } = readPaging(req, state.config);
    let all: ScimResource[];
    if (typeof req.query.filter === "string") {
      const f = parseEqFilter(req.query.filter, ["userName", "externalId", "id"]);
      if (f.attribute === "externalId") {
        all = [...state.users.values()].filter((u) => u.externalId === f.value);
      } else {
        // userName is caseExact false (RFC 7643 §4.1.1), so it is looked up lower-cased; by index, not by a
        // scan, as a platform with many users would (a scan made each lookup cost O(users))
        const id = f.attribute === "userName" ? state.userIdByName.get(f.value.toLowerCase()) : f.value;
        const u = id === undefined ? undefined : state.users.get(id);
        all = u ? [u] : [];
      }
    } else {
      all = [...state.users.values()];
    }
    send(res, 200, listResponse(all, startIndex, count));
  });

  r.get("/:id", (req, res) => {
    hit("/:id")(req);
    send(res, 200, find(req.params.id));
  });

  r.put("/:id", (req, res) => {
    hit("/:id")(req);
    const old = find(req.params.id);
    const next = { schemas: [USER], active: true, ...sanitize(req.body) };
    store(state, old, next);
    send(res, 200, state.users.get(old.id));
  });

  r.patch("/:id", (req, res) => {
    hit("/:id")(req);
    const old = find(req.params.id);
    const next: Record<string, unknown> = structuredClone(old);
    for (const op of readPatchOperations(req.body)) {
      if (op.op === "remove") removePath(next, op.path!);
      else if (op.path) setPath(next, op.path, op.value, op.op === "add");
      else if (typeof op.value === "object" && op.value !== null && !Array.isArray(op.value)) {
        for (const [k, v] of Object.entries(op.value)) setPath(next, k, v, op.op === "add");
      } else throw new SimError(400, "an operation without path needs an object value", "invalidValue");
    }
    store(state, old, sanitize(next));
    send(res, 200, state.users.get(old.id));
  });

  r.delete("/:id", (req, res) => {
    hit("/:id")(req);
    const u = find(req.params.id);
    state.users.delete(u.id);
    state.userIdByName.delete(String(u.userName).toLowerCase());
    for (const g of state.groups.values()) g.members.delete(u.id);
    res.status(204).end();
  });
  return r;
}

/** Validates a user body and drops read-only attributes. */
function sanitize(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new SimError(400, "body must be a User object", "invalidSyntax");
  const { id: _id, meta: _meta, ...rest } = body as Record<string, unknown>;
  if (typeof rest.userName !== "string" || !rest.userName.trim()) throw new SimError(400, "userName is required", "invalidValue");
  if (rest.active !== undefined && typeof rest.active !== "boolean") throw new SimError(400, "active must be a boolean", "invalidValue");
  return rest;
}

function claimUserName(state: SimState, userName: string, id: string): void {
  const lower = userName.toLowerCase();
  const owner = state.userIdByName.get(lower);
  if (owner && owner !== id) throw new SimError(409, `userName ${userName} already exists`, "uniqueness");
  state.userIdByName.set(lower, id);
}

/** Writes `next` over `old`, keeping id and bumping meta. */
function store(state: SimState, old: ScimResource, next: Record<string, unknown>): void {
  claimUserName(state, next.userName as string, old.id);
  const oldLower = String(old.userName).toLowerCase();
  if (oldLower !== (next.userName as string).toLowerCase()) state.userIdByName.delete(oldLower);
  const meta = old.meta as { version: string; created: string; location: string };
  const version = Number(/\d+/.exec(meta.version)?.[0] ?? 1) + 1;
  const { id: _i, meta: _m, ...rest } = next;
  state.users.set(old.id, { ...rest, id: old.id, meta: { ...meta, lastModified: new Date().toISOString(), version: `W/"${version}"` } });
}
