/**
 * `attributes` / `excludedAttributes` ([RFC7644§3.4.2.5]): which attributes a response carries.
 * `schemas` and `id` are always kept ("returned: always"); names are case-insensitive.
 *
 * A name may carry a value filter, as clients that reuse PATCH path syntax send it:
 * `attributes=emails[type eq "work"]` returns only the matching values of `emails`,
 * `attributes=emails[type eq "work"].value` only their `value`; in `excludedAttributes` the matching values
 * (or their sub-attribute) are left out. A multi-valued attribute with no value left is omitted
 * ([RFC7643§2.5]: an empty array is equivalent to unassigned).
 */
import { ScimError } from "../errors";
import type { ResourceKind } from "../schemas";
import { matches } from "./evaluate";
import { parseAttrPath, parseFilter, type AttrPath, type FilterNode } from "./filter";

type Json = Record<string, unknown>;

/** An attribute path, optionally with a value filter on its (multi-valued) attribute: `emails[type eq "work"].value`. */
export interface ProjectionPath extends AttrPath {
  filter?: FilterNode;
}

/** What to keep: everything, only some paths, or all but some paths. */
export type Projection =
  | { mode: "all" }
  | { mode: "include"; paths: ProjectionPath[] }
  | { mode: "exclude"; paths: ProjectionPath[] };

/** Most names one list may hold (each costs a pass over the resource). */
const MAX_NAMES = 100;

/** Splits a comma-separated list, keeping commas inside `[…]` and inside quoted filter values. */
export function splitNames(raw: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = "";
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (quoted) {
      if (ch === "\\") { cur += ch + (raw[i + 1] ?? ""); i++; continue; }
      if (ch === "\"") quoted = false;
    } else if (ch === "\"" && depth > 0) quoted = true;
    else if (ch === "[") depth++;
    else if (ch === "]") depth = Math.max(0, depth - 1);
    else if (ch === "," && depth === 0) { out.push(cur); cur = ""; continue; }
    cur += ch;
  }
  out.push(cur);
  return out;
}

const VALUE_PATH = /^([^[\]]+)\[(.*)\](?:\.([^.[\]]+))?$/s;

function parseName(name: string, list: string): ProjectionPath {
  const m = VALUE_PATH.exec(name);
  if (!m && /[[\]]/.test(name)) throw new ScimError(400, "invalidFilter", `'${list}' contains a value filter without its closing ']' (or with stray brackets)`);
  if (!m) {
    try {
      return parseAttrPath(name);
    } catch {
      throw new ScimError(400, "invalidValue", `'${list}' contains an invalid attribute name`);
    }
  }
  let path: AttrPath;
  try {
    path = parseAttrPath(m[3] ? `${m[1]}.${m[3]}` : m[1]);
    if (!m[3] && path.sub) throw new Error("a value filter applies to an attribute, not to a sub-attribute");
  } catch {
    throw new ScimError(400, "invalidValue", `'${list}' contains an invalid attribute name`);
  }
  return { ...path, filter: parseFilter(m[2]) }; // a bad filter is 400 invalidFilter
}

function parseList(raw: unknown, name: string): ProjectionPath[] {
  const items = Array.isArray(raw) ? raw.flatMap((x) => splitNames(String(x))) : typeof raw === "string" ? splitNames(raw) : null;
  if (!items) throw new ScimError(400, "invalidValue", `'${name}' must be a comma-separated list of attribute names`);
  const names = items.map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new ScimError(400, "invalidValue", `'${name}' must name at least one attribute`);
  if (names.length > MAX_NAMES) throw new ScimError(400, "invalidValue", `'${name}' names more than ${MAX_NAMES} attributes`);
  return names.map((n) => parseName(n, name));
}

/** Builds the projection from request parameters; `attributes` wins over `excludedAttributes`. */
export function parseProjection(attributes: unknown, excludedAttributes: unknown): Projection {
  if (attributes !== undefined && attributes !== "") return { mode: "include", paths: parseList(attributes, "attributes") };
  if (excludedAttributes !== undefined && excludedAttributes !== "") return { mode: "exclude", paths: parseList(excludedAttributes, "excludedAttributes") };
  return { mode: "all" };
}

/** Whether the projection keeps top-level attribute `attr` (lower-cased, core schema), or some of its values. */
export function keepsAttribute(p: Projection, attr: string): boolean {
  if (p.mode === "all") return true;
  if (p.mode === "include") return p.paths.some((x) => !x.uri && x.attr === attr);
  return !p.paths.some((x) => !x.uri && x.attr === attr && !x.sub && !x.filter);
}

function findKey(obj: Json, lower: string): string | undefined {
  if (Object.hasOwn(obj, lower)) return lower;
  return Object.keys(obj).find((k) => k.toLowerCase() === lower);
}

function kindOf(resource: Json): ResourceKind {
  return (resource.meta as Json | undefined)?.resourceType === "Group" ? "Group" : "User";
}

/** Whether element `el` of the attribute at `path` passes the path's value filter (no filter: yes). */
function passes(kind: ResourceKind, el: unknown, path: ProjectionPath): boolean {
  if (!path.filter) return true;
  return !!el && typeof el === "object" && !Array.isArray(el) && matches(kind, el as Json, path.filter, { ...(path.uri ? { uri: path.uri } : {}), attr: path.attr });
}

const WHOLE = Symbol("whole element");
type Picked = Map<number, Json | typeof WHOLE>;

/** Copies the part of `src` that `path` names into `dst`; values of a multi-valued attribute are collected in `picked`. */
function pick(kind: ResourceKind, src: Json, dst: Json, path: ProjectionPath, picked: Map<unknown[], Picked>): void {
  let from = src;
  let to = dst;
  if (path.uri) {
    const ek = findKey(src, path.uri);
    if (!ek || !src[ek] || typeof src[ek] !== "object") return;
    from = src[ek] as Json;
    to = (dst[ek] = (dst[ek] as Json) ?? {}) as Json;
  }
  const key = findKey(from, path.attr);
  if (!key) return;
  const v = from[key];
  if (Array.isArray(v)) {
    const sel = picked.get(v) ?? new Map<number, Json | typeof WHOLE>();
    picked.set(v, sel);
    v.forEach((el, i) => {
      if (!passes(kind, el, path)) return;
      if (!path.sub) { sel.set(i, WHOLE); return; }
      const prev = sel.get(i);
      const sk = el && typeof el === "object" ? findKey(el as Json, path.sub) : undefined;
      if (prev !== WHOLE && sk) sel.set(i, { ...prev, [sk]: (el as Json)[sk] });
    });
    to[key] = v; // replaced by the selected values in `fillPicked`
    return;
  }
  if (!passes(kind, v, path)) return;
  if (!path.sub) { to[key] = v; return; }
  if (v && typeof v === "object") {
    const sk = findKey(v as Json, path.sub);
    if (sk) to[key] = { ...((to[key] as Json) ?? {}), [sk]: (v as Json)[sk] };
  }
}

/** Replaces every picked multi-valued attribute in `obj` by its selected values, in their original order. */
function fillPicked(obj: Json, picked: Map<unknown[], Picked>): void {
  for (const [k, v] of Object.entries(obj)) {
    if (Array.isArray(v) && picked.has(v)) {
      const sel = picked.get(v)!;
      const values = [...sel.keys()].sort((a, b) => a - b).map((i) => { const x = sel.get(i)!; return x === WHOLE ? v[i] : x; });
      if (values.length) obj[k] = values;
      else delete obj[k];
    } else if (v && typeof v === "object" && !Array.isArray(v) && k.startsWith("urn:")) {
      fillPicked(v as Json, picked);
    }
  }
}

function drop(kind: ResourceKind, obj: Json, path: ProjectionPath): void {
  let target = obj;
  if (path.uri) {
    const ek = findKey(obj, path.uri);
    if (!ek) return;
    target = obj[ek] as Json;
    if (!target || typeof target !== "object") return;
  }
  const key = findKey(target, path.attr);
  if (!key) return;
  if (!path.sub && !path.filter) { delete target[key]; return; }
  const v = target[key];
  if (Array.isArray(v) && !path.sub) {
    const kept = v.filter((el) => !passes(kind, el, path));
    if (kept.length) target[key] = kept;
    else delete target[key];
    return;
  }
  for (const el of Array.isArray(v) ? v : [v]) {
    if (el && typeof el === "object" && passes(kind, el, path)) {
      const sk = findKey(el as Json, path.sub!);
      if (sk) delete (el as Json)[sk];
    }
  }
}

/** Applies the projection to a full resource representation. */
export function project(resource: Json, p: Projection): Json {
  if (p.mode === "all") return resource;
  const kind = kindOf(resource);
  if (p.mode === "include") {
    const out: Json = { schemas: resource.schemas, id: resource.id };
    const picked = new Map<unknown[], Picked>();
    for (const path of p.paths) {
      // a whole extension named by its URN ("urn:…:enterprise:2.0:User") parses as uri + attr
      const whole = path.uri && !path.sub && !path.filter ? findKey(resource, `${path.uri}:${path.attr}`) : undefined;
      if (whole) out[whole] = resource[whole];
      else pick(kind, resource, out, path, picked);
    }
    fillPicked(out, picked);
    return out;
  }
  const out = structuredClone(resource);
  for (const path of p.paths) {
    if (!path.uri && !path.sub && !path.filter && (path.attr === "id" || path.attr === "schemas")) continue;
    const urn = path.uri ? `${path.uri}:${path.attr}` : undefined;
    const k = urn && !path.filter ? findKey(out, urn) : undefined;
    if (k && !path.sub) { delete out[k]; continue; }
    drop(kind, out, path);
  }
  return out;
}
