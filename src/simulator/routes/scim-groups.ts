/**
 * Platform SCIM Groups at `/api/scim/v2/Groups`: POST, GET (list, `filter=displayName eq "…"`,
 * `excludedAttributes=members`), GET by id, PUT, PATCH (members add/remove by value array or
 * `members[value eq "x"]` path, displayName replace), DELETE. displayName is unique case-insensitively, since
 * generate-session resolves groups by name. A member must be an existing user (400 `invalidValue`).
 * PATCH answers 204 No Content (RFC 7644 §3.5.2 allows it), so member changes never echo big groups.
 */
import { randomUUID } from "node:crypto";
import { Router, type Request, type Response } from "express";
import type { SimGroup, SimState } from "../state";
import { SimError } from "../sim-error";
import { parseEqFilter, parseMemberValuePath } from "../scim/filter";
import { listResponse, readPaging } from "../scim/list";
import { readPatchOperations } from "../scim/patch-op";

const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";

/** Router for `/Groups`. */
export function scimGroupsRouter(state: SimState): Router {
  const r = Router();
  const hit = (req: Request, route: string) => state.counters.hit(req.method, `/scim/v2/Groups${route}`);
  const find = (id: string) => {
    const g = state.groups.get(id);
    if (!g) throw new SimError(404, `Group ${id} not found`);
    return g;
  };
  const send = (res: Response, status: number, body: unknown) => res.status(status).type("application/scim+json").send(JSON.stringify(body));
  const withoutMembers = (req: Request) => String(req.query.excludedAttributes ?? "").toLowerCase().split(",").includes("members");

  r.post("/", (req, res) => {
    hit(req, "");
    const body = readBody(req.body);
    const now = new Date().toISOString();
    const g: SimGroup = { id: randomUUID(), displayName: "", members: new Map(), created: now, lastModified: now, version: 1 };
    rename(state, g, body.displayName);
    if (typeof body.externalId === "string") g.externalId = body.externalId;
    addMembers(state, g, body.members ?? []);
    state.groups.set(g.id, g);
    send(res, 201, render(g, false));
  });

  r.get("/", (req, res) => {
    hit(req, "");
    const { startIndex, count } = readPaging(req, state.config);
    let all = [...state.groups.values()];
    if (typeof req.query.filter === "string") {
      const f = parseEqFilter(req.query.filter, ["displayName", "externalId", "id"]);
      all = all.filter((g) => (f.attribute === "displayName" ? g.displayName.toLowerCase() === f.value.toLowerCase() : g[f.attribute as "id"] === f.value));
    }
    const page = listResponse(all, startIndex, count);
    page.Resources = (page.Resources as SimGroup[]).map((g) => render(g, withoutMembers(req)));
    send(res, 200, page);
  });

  r.get("/:id", (req, res) => {
    hit(req, "/:id");
    send(res, 200, render(find(req.params.id), withoutMembers(req)));
  });

  r.put("/:id", (req, res) => {
    hit(req, "/:id");
    const g = find(req.params.id);
    const body = readBody(req.body);
    rename(state, g, body.displayName);
    g.externalId = typeof body.externalId === "string" ? body.externalId : undefined;
    g.members.clear();
    addMembers(state, g, body.members ?? []);
    touch(g);
    send(res, 200, render(g, false));
  });

  r.patch("/:id", (req, res) => {
    hit(req, "/:id");
    const g = find(req.params.id);
    for (const op of readPatchOperations(req.body)) {
      const path = op.path?.trim();
      const filterIds = path ? parseMemberValuePath(path) : null;
      if (filterIds) {
        if (op.op !== "remove") throw new SimError(400, "a members[…] path is only supported with remove", "invalidPath");
        for (const id of filterIds) g.members.delete(id);
      } else if (!path) {
        const v = op.value as Record<string, unknown> | undefined;
        if (typeof v !== "object" || v === null) throw new SimError(400, "an operation without path needs an object value", "invalidValue");
        if (v.displayName !== undefined) rename(state, g, v.displayName);
        if (v.members !== undefined) {
          if (op.op === "replace") g.members.clear();
          addMembers(state, g, v.members);
        }
      } else if (path.toLowerCase() === "displayname") {
        if (op.op === "remove") throw new SimError(400, "displayName is required", "mutability");
        rename(state, g, op.value);
      } else if (path.toLowerCase() === "members") {
        if (op.op === "replace") g.members.clear();
        if (op.op === "remove") {
          if (op.value === undefined) g.members.clear();
          else for (const m of memberList(op.value)) g.members.delete(m.value);
        } else addMembers(state, g, op.value);
      } else if (path.toLowerCase() === "externalid") {
        g.externalId = op.op === "remove" ? undefined : String(op.value);
      } else throw new SimError(400, `unsupported path ${path}`, "invalidPath");
    }
    touch(g);
    res.status(204).end();
  });

  r.delete("/:id", (req, res) => {
    hit(req, "/:id");
    const g = find(req.params.id);
    state.groups.delete(g.id);
    state.groupIdByName.delete(g.displayName.toLowerCase());
    res.status(204).end();
  });
  return r;
}

function readBody(body: unknown): { displayName: unknown; externalId?: unknown; members?: unknown } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new SimError(400, "body must be a Group object", "invalidSyntax");
  return body as { displayName: unknown };
}

function rename(state: SimState, g: SimGroup, name: unknown): void {
  if (typeof name !== "string" || !name.trim()) throw new SimError(400, "displayName is required", "invalidValue");
  const owner = state.groupIdByName.get(name.toLowerCase());
  if (owner && owner !== g.id) throw new SimError(409, `group ${name} already exists`, "uniqueness");
  if (g.displayName) state.groupIdByName.delete(g.displayName.toLowerCase());
  state.groupIdByName.set(name.toLowerCase(), g.id);
  g.displayName = name;
}

function memberList(value: unknown): { value: string; display?: string }[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((m) => {
    const v = (m as { value?: unknown })?.value;
    if (typeof v !== "string") throw new SimError(400, "each member needs a string value", "invalidValue");
    const display = (m as { display?: unknown }).display;
    return typeof display === "string" ? { value: v, display } : { value: v };
  });
}

function addMembers(state: SimState, g: SimGroup, value: unknown): void {
  const list = memberList(value);
  for (const m of list) if (!state.users.has(m.value)) throw new SimError(400, `member ${m.value} is not an existing user`, "invalidValue");
  for (const m of list) g.members.set(m.value, { value: m.value, display: m.display ?? (state.users.get(m.value)?.userName as string) });
}

function touch(g: SimGroup): void {
  g.lastModified = new Date().toISOString();
  g.version++;
}

function render(g: SimGroup, withoutMembers: boolean): Record<string, unknown> {
  return {
    schemas: [GROUP],
    id: g.id,
    displayName: g.displayName,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    ...(withoutMembers ? {} : { members: [...g.members.values()] }),
    meta: { resourceType: "Group", created: g.created, lastModified: g.lastModified, location: `/api/scim/v2/Groups/${g.id}`, version: `W/"${g.version}"` },
  };
}
