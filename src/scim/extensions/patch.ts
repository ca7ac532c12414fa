/**
 * PATCH operations on extension attributes and on attributes the directory does not have.
 *
 * `patchTarget` sorts each normalised operation: a declared extension attribute (applied here, by
 * `applyDeclaredOps`), an attribute SCIMMY defines (applied by SCIMMY), or an attribute this directory
 * does not have, which is ignored: [RFC7644§3.3] lets a service provider "alter and/or ignore" content it
 * does not support, and refusing the whole request lost the operations it does support (IDP-DIALECTS
 * E20: Entra sends a custom attribute in the same PATCH as `active`). A path that is not an attribute
 * path at all is left to SCIMMY, which answers 400 invalidPath.
 *
 * Declared attributes are simple (no sub-attributes). Multi-valued ones accept a value filter on `value`
 * (`urn:…:User:skills[value eq "go"]`) in remove and replace ([RFC7644§3.5.2]).
 */
import { ScimError } from "../errors";
import type { PatchOperation } from "../dialects/patch-request";
import { plainPath } from "../dialects/patch-request";
import { wholeExtension } from "../dialects/extension-patch";
import { parseFilter, type FilterNode } from "../query/filter";
import { attrInfo, USER_SCHEMA } from "../schemas";
import type { DeclaredExtensions } from "./declared";
import { assertValueCount, declaredValue } from "./values";

type Json = Record<string, unknown>;
type Scalar = string | number | boolean;

/** An attribute path as RFC 7644 §3.10 writes it: `[urn:]attr[filter][.sub]`. */
const ATTR_PATH = /^(?:urn:[^\s[\]]+:)?[A-Za-z][\w$-]*(?:\[[^\]]*\])?(?:\.[A-Za-z][\w$-]*)?$/s;
const CORE_PREFIX = `${USER_SCHEMA.toLowerCase()}:`;

/** True when `path` is written as an attribute path (whether or not the attribute exists). */
export function isAttributePath(path: string): boolean {
  return ATTR_PATH.test(path.trim());
}

/** Where an operation goes: the declared extensions, SCIMMY, or nowhere (ignored). */
export function patchTarget(exts: DeclaredExtensions, op: PatchOperation): "declared" | "scimmy" | "ignored" {
  const path = op.path?.trim();
  if (!path) return "scimmy";
  const plain = plainPath(path);
  if (exts.extension(plain)) return "declared";
  const ext = exts.extensionOf(plain);
  if (ext) return exts.attribute(`${ext.urn}:${plain.slice(ext.urn.length + 1).split(".")[0]}`) ? "declared" : "ignored";
  if (wholeExtension("User", path) || !ATTR_PATH.test(path)) return "scimmy";
  const bare = plain.startsWith(CORE_PREFIX) ? plain.slice(CORE_PREFIX.length) : plain;
  return attrInfo("User", bare) ? "scimmy" : "ignored";
}

/** Does `item` (a value of a simple multi-valued attribute) match a value filter on `value`? */
function matchesValue(node: FilterNode, item: Scalar, caseExact: boolean): boolean {
  switch (node.op) {
    case "and": return matchesValue(node.left, item, caseExact) && matchesValue(node.right, item, caseExact);
    case "or": return matchesValue(node.left, item, caseExact) || matchesValue(node.right, item, caseExact);
    case "not": return !matchesValue(node.expr, item, caseExact);
    case "pr": return node.path.attr === "value";
    case "vpath": return false;
    default: {
      if (node.path.attr !== "value" || node.path.sub || node.path.uri) return false;
      const fold = (v: unknown) => (typeof v === "string" && !caseExact ? v.toLowerCase() : v);
      const a = fold(item);
      const b = fold(node.value);
      switch (node.op) {
        case "eq": return a === b;
        case "ne": return a !== b;
        case "co": return typeof a === "string" && typeof b === "string" && a.includes(b);
        case "sw": return typeof a === "string" && typeof b === "string" && a.startsWith(b);
        case "ew": return typeof a === "string" && typeof b === "string" && a.endsWith(b);
        default: {
          if (b === null || typeof a !== typeof b || typeof a === "boolean") return false;
          const c = (a as string | number) < (b as string | number) ? -1 : a === b ? 0 : 1;
          return node.op === "gt" ? c > 0 : node.op === "ge" ? c >= 0 : node.op === "lt" ? c < 0 : c <= 0;
        }
      }
    }
  }
}

function valueFilter(path: string, text: string): FilterNode {
  try {
    return parseFilter(text);
  } catch {
    throw new ScimError(400, "invalidPath", `'${path}' has a value filter that cannot be read`);
  }
}

/**
 * Applies operations `patchTarget` sent to "declared" to the declared extension objects of a user
 * (`exts`: URN → attributes, changed in place).
 */
export function applyDeclaredOps(declared: DeclaredExtensions, objects: Json, ops: PatchOperation[]): void {
  for (const op of ops) {
    const path = op.path!.trim();
    const whole = declared.extension(path);
    if (whole) {
      // an add/replace on the whole extension was split per attribute (extension-patch.ts); what is left is a remove
      if (op.op !== "remove") throw new ScimError(400, "invalidValue", `'${op.op}' on ${whole.urn} needs an object of the extension's attributes as its value`);
      delete objects[whole.urn];
      continue;
    }
    const ext = declared.extensionOf(path)!;
    const m = /^([A-Za-z][\w-]*)(?:\[(.*)\])?$/s.exec(path.slice(ext.urn.length + 1).trim());
    if (!m) throw new ScimError(400, "invalidPath", `'${path}': the attributes of ${ext.urn} have no sub-attributes`);
    const { attr } = declared.attribute(`${ext.urn}:${m[1]}`)!;
    if (m[2] !== undefined && !attr.multiValued) throw new ScimError(400, "invalidPath", `'${path}': a value filter needs a multi-valued attribute`);
    const filter = m[2] !== undefined ? valueFilter(path, m[2]) : undefined;
    const obj = (objects[ext.urn] ??= {}) as Json;
    const current = obj[attr.name];
    const list = (Array.isArray(current) ? current : current === undefined ? [] : [current]) as Scalar[];
    const hit = (v: Scalar) => !!filter && matchesValue(filter, v, attr.caseExact);
    const label = `${ext.urn}:${attr.name}`;

    if (op.op === "remove") {
      if (!filter) delete obj[attr.name];
      else { const rest = list.filter((v) => !hit(v)); if (rest.length) obj[attr.name] = rest; else delete obj[attr.name]; }
    } else {
      const value = declaredValue(ext, attr, label, op.value);
      if (value === undefined) delete obj[attr.name];
      else if (!attr.multiValued) obj[attr.name] = value;
      else if (op.op === "add") {
        // [RFC7644§3.5.2.1] "If the target location specifies a multi-valued attribute, the values are added"
        const merged = [...list, ...(value as Scalar[]).filter((v) => !list.includes(v))];
        assertValueCount(ext, label, merged);
        obj[attr.name] = merged;
      } else if (!filter) obj[attr.name] = value;
      else {
        // [RFC7644§3.5.2.3] "If the target location is a multi-valued attribute for which a value selection
        // filter ("valuePath") has been supplied and no record match was made, the service provider SHALL
        // indicate failure by returning HTTP status code 400 and a "scimType" error code of "noTarget"."
        if (!list.some(hit)) throw new ScimError(400, "noTarget", `'${path}' matches no value`);
        const merged = [...list.filter((v) => !hit(v)), ...(value as Scalar[])];
        assertValueCount(ext, label, merged);
        obj[attr.name] = merged;
      }
    }
    if (Object.keys(obj).length === 0) delete objects[ext.urn];
  }
}

/** The declared extension objects a stored body holds (copies), and the body without them. */
export function splitDeclared(declared: DeclaredExtensions, body: Json): { rest: Json; objects: Json } {
  const rest: Json = {};
  const objects: Json = {};
  for (const [k, v] of Object.entries(body)) {
    const ext = declared.extension(k);
    if (ext && v && typeof v === "object" && !Array.isArray(v)) objects[ext.urn] = structuredClone(v);
    else rest[k] = v;
  }
  return { rest, objects };
}
