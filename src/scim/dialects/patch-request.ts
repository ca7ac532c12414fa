/**
 * Normalises a PATCH request body into the RFC 7644 §3.5.2 shape SCIMMY and our group engine expect,
 * accepting every form Okta and Entra ID send (IDP-DIALECTS.md):
 * - O6 and others: `schemas` missing → added (Okta's real requests carry it; tolerant anyway);
 * - E1: "Don't require a case-sensitive match on … `op`" → `Add`/`Replace`/`Remove` lower-cased;
 * - E19: empty `Operations` → an empty list (a no-op, not an error);
 * - E5/O9: a no-path `value` object whose keys are attribute paths (`name.givenName`, URN-prefixed
 *   `urn:…:User:employeeNumber`) or extension objects → one path operation per attribute;
 * - E3: string booleans → booleans (see coerce-values.ts);
 * - a path-ed `add` / `replace` whose value is null becomes a `remove`: [RFC7643§2.5] "Assigning an
 *   attribute with the value "null" … has the effect of making the attribute "unassigned"";
 * - an `add` / `replace` on a whole extension URN becomes one operation per attribute (extension-patch.ts).
 */
import { ScimError } from "../errors";
import { tooManyOperations } from "../fairness/patch-operations";
import { attrInfo, PATCH_SCHEMA, type ResourceKind } from "../schemas";
import { coerceAt, coerceObject } from "./coerce-values";
import { expandExtensionOp } from "./extension-patch";

type Json = Record<string, unknown>;

/** One operation after normalisation. */
export interface PatchOperation {
  op: "add" | "remove" | "replace";
  path?: string;
  value?: unknown;
}

const IGNORED_NO_PATH_KEYS = new Set(["id", "meta", "schemas"]);

/** The attribute path with value filters stripped, lower-cased: `emails[type eq "work"].value` → `emails.value`. */
export function plainPath(path: string): string {
  return path.replace(/\[[^\]]*\]/g, "").toLowerCase();
}

function getCI(obj: Json, name: string): unknown {
  for (const k of Object.keys(obj)) if (k.toLowerCase() === name) return obj[k];
  return undefined;
}

/**
 * Validates and normalises a PatchOp body; throws 400 invalidSyntax / invalidValue on shapes nobody sends,
 * and 400 tooMany on more than `maxOperations` operations (before any is looked at).
 */
export function normalisePatch(kind: ResourceKind, body: unknown, maxOperations = Number.POSITIVE_INFINITY): PatchOperation[] {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new ScimError(400, "invalidSyntax", "PATCH body must be a PatchOp JSON object");
  }
  const b = body as Json;
  const schemas = b.schemas;
  if (schemas !== undefined && (!Array.isArray(schemas) || !schemas.some((s) => typeof s === "string" && s.toLowerCase() === PATCH_SCHEMA.toLowerCase()))) {
    throw new ScimError(400, "invalidSyntax", `PATCH body schemas must be ["${PATCH_SCHEMA}"]`);
  }
  const ops = getCI(b, "operations");
  if (ops === undefined || ops === null) return [];
  if (!Array.isArray(ops)) throw new ScimError(400, "invalidSyntax", "PATCH body 'Operations' must be an array");
  // the raw bytes were counted before the parse (fairness/patch-operations.ts); this count is exact
  if (ops.length > maxOperations) throw tooManyOperations(maxOperations, ops.length);

  const out: PatchOperation[] = [];
  ops.forEach((raw, i) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new ScimError(400, "invalidSyntax", `Operation ${i + 1} must be an object`);
    const o = raw as Json;
    // [RFC7644§3.5.2] "Each operation object MUST contain the following "op" member": a string. Anything
    // else is refused as it is; String() of a body's object can throw ({"toString": false} was a 500)
    const rawOp = getCI(o, "op");
    const opName = typeof rawOp === "string" ? rawOp.toLowerCase() : "";
    if (opName !== "add" && opName !== "remove" && opName !== "replace") {
      throw new ScimError(400, "invalidSyntax", `Invalid operation ${rawOp === undefined ? "(none)" : JSON.stringify(rawOp)} for operation ${i + 1} in PatchOp request body`);
    }
    const path = getCI(o, "path");
    const value = getCI(o, "value");
    if (path !== undefined && path !== null && (typeof path !== "string" || !path.trim())) {
      throw new ScimError(400, "invalidPath", `Operation ${i + 1} has an invalid path`);
    }
    if (typeof path === "string" && path.trim()) {
      const p = path.trim();
      if (opName !== "remove" && value === undefined) throw new ScimError(400, "invalidValue", `Operation ${i + 1} ('${opName}') needs a value`);
      if (opName !== "remove" && value === null) { out.push({ op: "remove", path: p }); return; }
      if (opName !== "remove") assertSomeKnownSubAttribute(kind, plainPath(p), value, i);
      out.push(...expandExtensionOp(kind, { op: opName, path: p, ...(value !== undefined ? { value: coerceAt(kind, plainPath(p), value) } : {}) }, i));
      return;
    }
    // [RFC7644§3.5.2.2] "If "path" is unspecified, the operation fails with … "noTarget"" (remove)
    if (opName === "remove") throw new ScimError(400, "noTarget", `Operation ${i + 1} ('remove') needs a path`);
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      throw new ScimError(400, "invalidValue", `Operation ${i + 1} without a path needs an object value`);
    }
    for (const [key, v] of Object.entries(coerceObject(kind, value) as Json)) {
      const lower = key.toLowerCase();
      if (IGNORED_NO_PATH_KEYS.has(lower)) continue;
      if (lower.startsWith("urn:") && v && typeof v === "object" && !Array.isArray(v) && !/:[^:]*\./.test(key) && isSchemaUrn(key)) {
        for (const [sub, sv] of Object.entries(v as Json)) {
          if (sub.toLowerCase() === "schemas") continue; // names the extension itself
          out.push(sv === null ? { op: "remove", path: `${key}:${sub}` } : { op: opName, path: `${key}:${sub}`, value: sv });
        }
        continue;
      }
      // a whole extension's object (`{"urn:…:2.0:User": {…}}`) is merged attribute by attribute, as with a path
      out.push(...(v === null ? [{ op: "remove" as const, path: key }] : expandExtensionOp(kind, { op: opName, path: key, value: v }, i)));
    }
  });
  return out;
}

/**
 * Per (kind, complex attribute path): whether a key as sent (any case) names one of its sub-attributes.
 * IdPs send a handful of distinct keys (`value`, `display`, `$ref`, `type`), so each item of a 256-member
 * PATCH costs one Map lookup of a key JSON.parse already hashed, instead of an attrInfo lookup of a
 * freshly lower-cased and concatenated path (73% of normalisePatch's CPU).
 */
const knownSubKeys = new Map<string, Map<string, boolean>>();
function subKeysOf(kind: ResourceKind, path: string): Map<string, boolean> {
  const slot = `${kind} ${path}`;
  let known = knownSubKeys.get(slot);
  if (!known) knownSubKeys.set(slot, (known = new Map()));
  return known;
}

/**
 * A value for a complex attribute must name at least one of its sub-attributes: SCIMMY drops unknown ones,
 * so `{"op":"replace","path":"…:manager","value":{"givenName":"x"}}` would have removed the manager.
 */
function assertSomeKnownSubAttribute(kind: ResourceKind, path: string, value: unknown, i: number): void {
  const info = attrInfo(kind, path);
  if (info?.type !== "complex" || !value || typeof value !== "object") return;
  const known = subKeysOf(kind, path);
  const isSub = (key: string): boolean => {
    let hit = known.get(key);
    if (hit === undefined) {
      hit = attrInfo(kind, `${path}.${key.toLowerCase()}`) !== undefined;
      if (known.size < 64) known.set(key, hit); // bounded: the keys come from requests
    }
    return hit;
  };
  for (const item of Array.isArray(value) ? value : [value]) {
    if (!item || typeof item !== "object" || Array.isArray(item)) continue; // SCIMMY reports the type
    const keys = Object.keys(item as Json);
    if (keys.length && !keys.some(isSub)) {
      throw new ScimError(400, "invalidPath", `Operation ${i + 1}: '${keys[0]}' is not a sub-attribute of '${path}'`);
    }
  }
}

/** True when `urn` names a schema (…:2.0:User) rather than an attribute of one (…:2.0:User:department). */
function isSchemaUrn(urn: string): boolean {
  return /:(user|group)$/i.test(urn) || !/:2\.0:[^:]+:[^:]+$/.test(urn);
}
