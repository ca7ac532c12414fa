/**
 * Evaluates a parsed filter against one SCIM resource (as the client sees it: core attributes at the
 * top level, extension attributes under their schema URN). Pure; never throws on missing attributes:
 * a filter on an attribute a record lacks simply does not match (`ne` and `not` aside).
 *
 * Comparison rules of [RFC7644§3.4.2.2]: strings compare case-insensitively unless the attribute is
 * caseExact; "gt/ge/lt/le" on dateTime compare instants; "Boolean and Binary attributes SHALL cause a
 * failed response (HTTP status code 400) with a scimType of invalidFilter" for ordering operators;
 * on a multi-valued attribute a comparison is true when any value matches.
 */
import { ScimError } from "../errors";
import { attrInfo, type AttrInfo, type ResourceKind } from "../schemas";
import { compareInstants, parseInstant } from "./date-time";
import type { AttrPath, CompareOp, CompValue, FilterNode } from "./filter";

type Json = Record<string, unknown>;

/** Lower-cased key → key, per object, built once the first time a key is not found as written. */
const lowerKeys = new WeakMap<object, Map<string, string>>();

/**
 * Finds an own key case-insensitively. Own keys only: `"constructor" in {}` is true, so a filter such as
 * `constructor pr` used to match every resource, where an attribute the resource lacks must not match.
 * A scan evaluates dozens of comparisons on each record: the lower-cased keys of an object are computed
 * once, not once per comparison.
 */
export function getCI(obj: unknown, key: string): unknown {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return undefined;
  const o = obj as Json;
  if (Object.hasOwn(o, key)) return o[key];
  let keys = lowerKeys.get(o);
  if (!keys) {
    keys = new Map();
    for (const k of Object.keys(o)) { const l = k.toLowerCase(); if (!keys.has(l)) keys.set(l, k); }
    lowerKeys.set(o, keys);
  }
  const k = keys.get(key);
  return k === undefined ? undefined : o[k];
}

function pathKey(p: AttrPath): string {
  return `${p.uri ? `${p.uri}:` : ""}${p.attr}${p.sub ? `.${p.sub}` : ""}`;
}

/** Values at `path` (flattened over multi-valued attributes); complex multi-valued → their `value`s. */
export function valuesAt(resource: Json, path: AttrPath): unknown[] {
  const container = path.uri ? getCI(resource, path.uri) : resource;
  const top = getCI(container, path.attr);
  if (top === undefined || top === null) return [];
  const items = Array.isArray(top) ? top : [top];
  const out: unknown[] = [];
  for (const item of items) {
    if (path.sub) {
      const v = getCI(item, path.sub);
      if (Array.isArray(v)) out.push(...v);
      else if (v !== undefined && v !== null) out.push(v);
    } else if (item && typeof item === "object" && !Array.isArray(item)) {
      // "emails co x" on a complex multi-valued attribute compares its primary sub-attribute "value"
      const v = getCI(item, "value");
      if (v !== undefined && v !== null) out.push(v);
    } else {
      out.push(item);
    }
  }
  return out;
}

function lookupInfo(kind: ResourceKind, path: AttrPath, parent?: AttrPath): AttrInfo | undefined {
  if (parent) return attrInfo(kind, `${pathKey(parent)}.${path.attr}`);
  return attrInfo(kind, pathKey(path)) ?? (path.sub ? undefined : attrInfo(kind, `${pathKey(path)}.value`));
}

/** The attribute characteristics of a filter node's path, looked up once per node and resource type. */
const infoCache = new WeakMap<AttrPath, Partial<Record<ResourceKind, AttrInfo | null>>>();

function info(kind: ResourceKind, path: AttrPath, parent?: AttrPath): AttrInfo | undefined {
  let byKind = infoCache.get(path);
  if (!byKind) { byKind = {}; infoCache.set(path, byKind); }
  let found = byKind[kind];
  if (found === undefined) found = byKind[kind] = lookupInfo(kind, path, parent) ?? null;
  return found ?? undefined;
}

/** Types whose values are text: an unquoted number is compared with them as it was written. */
const TEXT_TYPES = new Set(["string", "reference", "binary"]);
const ORDERING = new Set(["gt", "ge", "lt", "le"]);

/** A comparison's expected text, lower-cased unless caseExact: computed once per filter node, not per record. */
const expectedText = new WeakMap<object, string>();

function compare(op: CompareOp, actual: unknown, expected: CompValue, ai: AttrInfo | undefined, text?: string, node?: object): boolean {
  const type = ai?.type ?? (typeof actual === "boolean" ? "boolean" : typeof actual === "number" ? "decimal" : "string");
  if ((type === "boolean" || type === "binary") && ORDERING.has(op)) {
    throw new ScimError(400, "invalidFilter", `Operator '${op}' cannot be used on a ${type} attribute`);
  }
  if (expected === null) return op === "ne" ? actual !== null && actual !== undefined : op === "eq" ? actual === null || actual === undefined : false;
  if (type === "dateTime" && typeof actual === "string" && typeof expected === "string") {
    if (op === "co" || op === "sw" || op === "ew") return ordered(op, actual, expected, actual, expected);
    const a = parseInstant(actual);
    const b = parseInstant(expected);
    if (!a || !b) return false;
    return ordered(op, compareInstants(a, b), 0, "", "");
  }
  if (type === "boolean" && typeof expected === "string") expected = expected.toLowerCase() === "true" ? true : expected.toLowerCase() === "false" ? false : expected;
  if (typeof actual === "boolean" || typeof expected === "boolean") {
    const a = typeof actual === "string" ? actual.toLowerCase() === "true" : actual;
    if (op === "eq") return a === expected;
    if (op === "ne") return a !== expected;
    return false;
  }
  if (typeof actual === "number" && typeof expected === "number") return ordered(op, actual, expected, String(actual), String(expected));
  if (typeof actual !== "string" && typeof actual !== "number") return false;
  let a = String(actual);
  let b = node ? expectedText.get(node) : undefined;
  if (b === undefined) {
    b = typeof expected === "number" && text !== undefined && TEXT_TYPES.has(type) ? text : String(expected);
    if (!ai?.caseExact) b = b.toLowerCase();
    if (node) expectedText.set(node, b);
  }
  if (!ai?.caseExact) a = a.toLowerCase();
  return ordered(op, a, b, a, b);
}

function ordered(op: CompareOp, a: number | string, b: number | string, sa: string, sb: string): boolean {
  switch (op) {
    case "eq": return a === b;
    case "ne": return a !== b;
    case "co": return sa.includes(sb);
    case "sw": return sa.startsWith(sb);
    case "ew": return sa.endsWith(sb);
    case "gt": return a > b;
    case "ge": return a >= b;
    case "lt": return a < b;
    case "le": return a <= b;
  }
}

/** Evaluates `node` against `resource`; `parent` is set inside a value path (`emails[...]`). */
export function matches(kind: ResourceKind, resource: Json, node: FilterNode, parent?: AttrPath): boolean {
  switch (node.op) {
    case "and": return matches(kind, resource, node.left, parent) && matches(kind, resource, node.right, parent);
    case "or": return matches(kind, resource, node.left, parent) || matches(kind, resource, node.right, parent);
    case "not": return !matches(kind, resource, node.expr, parent);
    case "pr": {
      const vals = valuesAt(resource, node.path);
      return vals.some((v) => v !== "" && !(Array.isArray(v) && v.length === 0));
    }
    case "vpath": {
      const container = node.path.uri ? getCI(resource, node.path.uri) : resource;
      const list = getCI(container, node.path.attr);
      const elems = Array.isArray(list) ? list : list && typeof list === "object" ? [list] : [];
      return elems.some((el) => el && typeof el === "object"
        && matches(kind, el as Json, node.filter, node.path)
        && (!node.then || matches(kind, el as Json, node.then, node.path)));
    }
    default: {
      const ai = info(kind, node.path, parent);
      const vals = valuesAt(resource, node.path);
      if (vals.length === 0) return node.op === "ne" ? node.value !== null : node.op === "eq" && node.value === null;
      if (node.op === "ne") return vals.every((v) => compare("ne", v, node.value, ai, node.text, node));
      return vals.some((v) => compare(node.op as CompareOp, v, node.value, ai, node.text, node));
    }
  }
}

/** True when `path` (inside the value path `parent`, if given) names an attribute of `kind`. */
export function isKnownAttribute(kind: ResourceKind, path: AttrPath, parent?: AttrPath): boolean {
  return info(kind, path, parent) !== undefined;
}

/**
 * Checks a filter before any record is read (so the answer does not depend on the data): 400 invalidFilter
 * - for an attribute the resource type does not define. draft-zollner-scim-interop-profile (Filtering): "When a
 *   filter expression is applied to a resource-type endpoint … and references an attribute not defined in
 *   any of that resource type's schemas, Service Providers MUST return an HTTP 400 error with a scimType
 *   of invalidFilter". `known` widens this for the server root, where an attribute of either type counts;
 * - for ordering operators on boolean and binary attributes ([RFC7644§3.4.2.2]);
 * - for a dateTime compared with a value that is not an xsd:dateTime.
 */
export function validateFilter(kind: ResourceKind, node: FilterNode, parent?: AttrPath, known: (path: AttrPath, parent?: AttrPath) => boolean = (p, q) => isKnownAttribute(kind, p, q)): void {
  const unknown = (path: AttrPath) => {
    const name = `${path.uri ? `${path.uri}:` : ""}${parent ? `${parent.attr}[…].` : ""}${path.attr}${path.sub ? `.${path.sub}` : ""}`;
    throw new ScimError(400, "invalidFilter", `Filter names an attribute this resource type does not have: '${name}'`);
  };
  switch (node.op) {
    case "and": case "or": validateFilter(kind, node.left, parent, known); validateFilter(kind, node.right, parent, known); return;
    case "not": validateFilter(kind, node.expr, parent, known); return;
    case "pr": if (!known(node.path, parent)) unknown(node.path); return;
    case "vpath":
      if (!known(node.path)) unknown(node.path);
      validateFilter(kind, node.filter, node.path, known);
      if (node.then) validateFilter(kind, node.then, node.path, known);
      return;
    default: {
      if (!known(node.path, parent)) unknown(node.path);
      const ai = info(kind, node.path, parent);
      if (ai && (ai.type === "boolean" || ai.type === "binary") && ["gt", "ge", "lt", "le"].includes(node.op)) {
        throw new ScimError(400, "invalidFilter", `Operator '${node.op}' cannot be used on a ${ai.type} attribute`);
      }
      if (ai?.type === "dateTime" && !["co", "sw", "ew"].includes(node.op) && node.value !== null) {
        if (typeof node.value !== "string" || !parseInstant(node.value)) {
          throw new ScimError(400, "invalidFilter", `'${String(node.text ?? node.value)}' is not an xsd:dateTime (e.g. 2015-10-10T14:38:21.8617979-07:00)`);
        }
      }
    }
  }
}
