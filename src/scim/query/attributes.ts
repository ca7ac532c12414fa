/**
 * `attributes` / `excludedAttributes` ([RFC7644§3.4.2.5]): which attributes a response carries.
 * `schemas` and `id` are always kept ("returned: always"); names are case-insensitive.
 */
import { ScimError } from "../errors";
import { parseAttrPath, type AttrPath } from "./filter";

type Json = Record<string, unknown>;

/** What to keep: everything, only some paths, or all but some paths. */
export type Projection =
  | { mode: "all" }
  | { mode: "include"; paths: AttrPath[] }
  | { mode: "exclude"; paths: AttrPath[] };

function parseList(raw: unknown, name: string): AttrPath[] {
  const items = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(",") : null;
  if (!items) throw new ScimError(400, "invalidValue", `'${name}' must be a comma-separated list of attribute names`);
  const paths = items.map((s) => String(s).trim()).filter(Boolean);
  if (paths.length === 0) throw new ScimError(400, "invalidValue", `'${name}' must name at least one attribute`);
  try {
    return paths.map(parseAttrPath);
  } catch {
    throw new ScimError(400, "invalidValue", `'${name}' contains an invalid attribute name`);
  }
}

/** Builds the projection from request parameters; `attributes` wins over `excludedAttributes`. */
export function parseProjection(attributes: unknown, excludedAttributes: unknown): Projection {
  if (attributes !== undefined && attributes !== "") return { mode: "include", paths: parseList(attributes, "attributes") };
  if (excludedAttributes !== undefined && excludedAttributes !== "") return { mode: "exclude", paths: parseList(excludedAttributes, "excludedAttributes") };
  return { mode: "all" };
}

/** Whether the projection keeps top-level attribute `attr` (lower-cased, core schema). */
export function keepsAttribute(p: Projection, attr: string): boolean {
  if (p.mode === "all") return true;
  if (p.mode === "include") return p.paths.some((x) => !x.uri && x.attr === attr);
  return !p.paths.some((x) => !x.uri && x.attr === attr && !x.sub);
}

function findKey(obj: Json, lower: string): string | undefined {
  if (lower in obj) return lower;
  return Object.keys(obj).find((k) => k.toLowerCase() === lower);
}

function pick(src: Json, dst: Json, path: AttrPath): void {
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
  if (!path.sub) { to[key] = v; return; }
  if (Array.isArray(v)) {
    const prev = (to[key] as Json[] | undefined) ?? v.map(() => ({}));
    v.forEach((el, i) => {
      const sk = el && typeof el === "object" ? findKey(el as Json, path.sub as string) : undefined;
      if (sk) prev[i] = { ...prev[i], [sk]: (el as Json)[sk] };
    });
    to[key] = prev.filter((o) => Object.keys(o).length > 0);
  } else if (v && typeof v === "object") {
    const sk = findKey(v as Json, path.sub);
    if (sk) to[key] = { ...((to[key] as Json) ?? {}), [sk]: (v as Json)[sk] };
  }
}

function drop(obj: Json, path: AttrPath): void {
  let target = obj;
  if (path.uri) {
    const ek = findKey(obj, path.uri);
    if (!ek) return;
    target = obj[ek] as Json;
    if (!target || typeof target !== "object") return;
  }
  const key = findKey(target, path.attr);
  if (!key) return;
  if (!path.sub) { delete target[key]; return; }
  const v = target[key];
  for (const el of Array.isArray(v) ? v : [v]) {
    if (el && typeof el === "object") {
      const sk = findKey(el as Json, path.sub);
      if (sk) delete (el as Json)[sk];
    }
  }
}

/** Applies the projection to a full resource representation. */
export function project(resource: Json, p: Projection): Json {
  if (p.mode === "all") return resource;
  if (p.mode === "include") {
    const out: Json = { schemas: resource.schemas, id: resource.id };
    for (const path of p.paths) {
      // a whole extension named by its URN ("urn:…:enterprise:2.0:User") parses as uri + attr
      const whole = path.uri && !path.sub ? findKey(resource, `${path.uri}:${path.attr}`) : undefined;
      if (whole) out[whole] = resource[whole];
      else pick(resource, out, path);
    }
    return out;
  }
  const out = structuredClone(resource);
  for (const path of p.paths) {
    if (!path.uri && !path.sub && (path.attr === "id" || path.attr === "schemas")) continue;
    const urn = path.uri ? `${path.uri}:${path.attr}` : undefined;
    const k = urn ? findKey(out, urn) : undefined;
    if (k && !path.sub) { delete out[k]; continue; }
    drop(out, path);
  }
  return out;
}
