/**
 * Body coercion for the common case without SCIMMY's schema instances. SCIMMY's coercion of one user body
 * took ~0.5 ms (most of a POST's CPU); a body IdPs send (known attributes of the right
 * types: Okta O4, Entra's creates) is coerced here from the same definitions in a few microseconds, with
 * the result SCIMMY gives: attributes in definition order under their canonical names, unknown ones and
 * those not accepted on input (`id`, `meta`, `groups`, the never-returned `password`) left out, nulls
 * dropped, `schemas` the core schema plus the extensions present.
 *
 * Whenever a body holds anything not handled here exactly as SCIMMY does — a wrong type, a missing
 * required attribute, a type other than string/boolean/complex, dotted or URN keys, keys that differ only
 * in case, two primary values — `fastCoerce` returns undefined and the caller asks SCIMMY, whose answer
 * (and error message) stays the reference. test/scim/fast-coerce.test.ts compares both on generated bodies.
 */
import SCIMMY from "scimmy";
import { setupScimmy, type ResourceKind } from "../schemas";

type Json = Record<string, unknown>;

interface Def {
  name: string;
  type: string;
  multi: boolean;
  required: boolean;
  /** Accepted on input and kept in the stored body. */
  kept: boolean;
  subs?: Map<string, Def>;
  /** Sub-attributes in definition order. */
  order?: Def[];
}

interface Shape {
  core: string;
  /** Top-level attributes by lower-cased name, and in definition order. */
  attrs: Map<string, Def>;
  order: Def[];
  /** Extension URN (lower-cased) → its id and attributes. */
  extensions: Map<string, { id: string; attrs: Map<string, Def>; order: Def[] }>;
}

interface ScimmyAttr { name: string; type: string; config: { multiValued?: boolean; required?: boolean; direction?: string; returned?: unknown }; subAttributes?: ScimmyAttr[] }
interface ScimmyDef { id: string; attributes: Array<ScimmyAttr | ScimmyDef> }

const shapes = new Map<ResourceKind, Shape>();

function toDef(a: ScimmyAttr): Def {
  const kept = a.config.direction !== "out" && a.config.returned !== false && a.config.returned !== "never";
  const def: Def = { name: a.name, type: a.type, multi: !!a.config.multiValued, required: !!a.config.required, kept };
  if (a.subAttributes) {
    def.order = a.subAttributes.map(toDef);
    def.subs = new Map(def.order.map((s) => [s.name.toLowerCase(), s]));
  }
  return def;
}

function shapeOf(kind: ResourceKind): Shape {
  let shape = shapes.get(kind);
  if (shape) return shape;
  setupScimmy();
  const definition = (kind === "User" ? SCIMMY.Schemas.User : SCIMMY.Schemas.Group).definition as unknown as ScimmyDef;
  shape = { core: definition.id, attrs: new Map(), order: [], extensions: new Map() };
  for (const a of definition.attributes) {
    if ("id" in a && Array.isArray((a as ScimmyDef).attributes)) {
      const ext = a as ScimmyDef;
      const order = (ext.attributes as ScimmyAttr[]).map(toDef);
      shape.extensions.set(ext.id.toLowerCase(), { id: ext.id, attrs: new Map(order.map((d) => [d.name.toLowerCase(), d])), order });
      continue;
    }
    const def = toDef(a as ScimmyAttr);
    shape.order.push(def);
    shape.attrs.set(def.name.toLowerCase(), def);
  }
  shapes.set(kind, shape);
  return shape;
}

const FALLBACK = Symbol("ask SCIMMY");
type Out = unknown | typeof FALLBACK;

function isObject(v: unknown): v is Json {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** The object's keys by lower-cased name; FALLBACK when two differ only in case. */
function keysByName(obj: Json): Map<string, string> | typeof FALLBACK {
  const out = new Map<string, string>();
  for (const k of Object.keys(obj)) {
    const lower = k.toLowerCase();
    if (out.has(lower)) return FALLBACK;
    out.set(lower, k);
  }
  return out;
}

function simple(def: Def, v: unknown): Out {
  if (def.type === "string") return typeof v === "string" ? v : FALLBACK;
  if (def.type === "boolean") return typeof v === "boolean" ? v : FALLBACK;
  return FALLBACK; // reference, binary, dateTime, decimal, integer: SCIMMY's checks
}

/** A complex value: its known sub-attributes in definition order. */
function complex(def: Def, v: unknown): Out {
  if (!isObject(v)) return FALLBACK;
  const keys = keysByName(v);
  if (keys === FALLBACK) return FALLBACK;
  for (const lower of keys.keys()) if (!def.subs!.has(lower) && /[.:]/.test(lower)) return FALLBACK;
  const out: Json = {};
  for (const sub of def.order!) {
    const k = keys.get(sub.name.toLowerCase());
    if (k === undefined || v[k] === null || v[k] === undefined) continue;
    if (!sub.kept || sub.multi || sub.subs) return FALLBACK;
    const c = simple(sub, v[k]);
    if (c === FALLBACK) return FALLBACK;
    out[sub.name] = c;
  }
  return out;
}

function value(def: Def, v: unknown): Out {
  if (!def.multi) {
    if (!def.subs) return simple(def, v);
    // an empty single-valued complex value (`"manager": {}`): SCIMMY leaves it out, and with it an extension
    // that holds nothing else; let SCIMMY judge it
    const c = complex(def, v);
    return isObject(c) && Object.keys(c).length === 0 ? FALLBACK : c;
  }
  if (!Array.isArray(v)) return FALLBACK;
  const out: unknown[] = [];
  let primaries = 0;
  for (const el of v) {
    if (el === null || el === undefined) return FALLBACK;
    const c = def.subs ? complex(def, el) : simple(def, el);
    if (c === FALLBACK) return FALLBACK;
    if (isObject(c) && c.primary === true && ++primaries > 1) return FALLBACK;
    out.push(c);
  }
  return out;
}

/** Attributes of `obj` named in `attrs`, in `order`; FALLBACK for anything SCIMMY must judge. */
function attributes(obj: Json, keys: Map<string, string>, attrs: Map<string, Def>, order: Def[], skip: (lower: string) => boolean): Json | typeof FALLBACK {
  for (const lower of keys.keys()) {
    if (skip(lower) || attrs.has(lower)) continue;
    if (/[.:]/.test(lower)) return FALLBACK; // a path or a URN: SCIMMY reads these
  }
  const out: Json = {};
  for (const def of order) {
    const lower = def.name.toLowerCase();
    if (skip(lower)) continue;
    const k = keys.get(lower);
    const v = k === undefined ? undefined : obj[k];
    if (v === null && def.multi) return FALLBACK; // SCIMMY: "expected to be a collection"
    if (v === null || v === undefined) {
      if (def.required) return FALLBACK;
      continue;
    }
    if (!def.kept) {
      if (def.type === "string" && typeof v !== "string") return FALLBACK;
      if (def.multi && !Array.isArray(v)) return FALLBACK;
      continue;
    }
    const c = value(def, v);
    if (c === FALLBACK) return FALLBACK;
    out[def.name] = c;
  }
  return out;
}

/**
 * The body SCIMMY's coercion would produce for `raw` (without `id` and `meta`), or undefined when this
 * path does not handle `raw` exactly like SCIMMY.
 */
export function fastCoerce(kind: ResourceKind, raw: Json): Json | undefined {
  const shape = shapeOf(kind);
  const keys = keysByName(raw);
  if (keys === FALLBACK) return undefined;
  const sk = keys.get("schemas");
  const listed = new Set<string>();
  if (sk !== undefined && sk !== "schemas") return undefined; // SCIMMY reads only this spelling
  if (sk !== undefined) {
    // SCIMMY wants the core URN exactly as written, and keeps listed extensions as written: only exact ones here
    const schemas = raw[sk];
    if (!Array.isArray(schemas) || schemas[0] !== shape.core) return undefined;
    for (const s of schemas) {
      if (s === shape.core) continue;
      if (typeof s !== "string" || listed.has(s) || ![...shape.extensions.values()].some((e) => e.id === s)) return undefined;
      listed.add(s.toLowerCase());
    }
  }
  const mk = keys.get("meta");
  if (mk !== undefined && raw[mk] !== null && !isObject(raw[mk])) return undefined;
  const ik = keys.get("id");
  if (ik !== undefined && raw[ik] !== null && typeof raw[ik] !== "string") return undefined;
  const core = attributes(raw, keys, shape.attrs, shape.order, (lower) => lower === "schemas" || lower === "id" || lower === "meta" || shape.extensions.has(lower));
  if (core === FALLBACK) return undefined;
  const schemas = [shape.core];
  const exts: Json = {};
  for (const [lower, ext] of shape.extensions) {
    const k = keys.get(lower);
    const v = k === undefined ? undefined : raw[k];
    if (v === undefined) {
      if (listed.has(lower)) schemas.push(ext.id); // listed without attributes: SCIMMY keeps the URN
      continue;
    }
    if (k !== ext.id || !isObject(v)) return undefined; // other spellings and shapes: SCIMMY's reading
    const ekeys = keysByName(v);
    if (ekeys === FALLBACK) return undefined;
    const body = attributes(v, ekeys, ext.attrs, ext.order, () => false);
    if (body === FALLBACK || Object.keys(body).length === 0) return undefined;
    schemas.push(ext.id);
    exts[ext.id] = body;
  }
  return { schemas, ...core, ...exts };
}
