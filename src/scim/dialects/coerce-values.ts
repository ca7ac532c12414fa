/**
 * Value fixes for what IdPs send, applied before SCIMMY validates anything:
 * - Entra ID without `aadOptscim062020` sends booleans as the strings "True"/"False"
 *   (IDP-DIALECTS E3: `{"op":"Replace","path":"active","value":"False"}`), in PATCH and in bodies;
 * - Entra ID sends the enterprise `manager` as a bare id string (E6), where the schema wants `{value}`.
 * Both are turned into what RFC 7643 defines; anything else is left for SCIMMY to judge.
 */
import { attrInfo, ENTERPRISE_SCHEMA, hasBooleanSubAttribute, type ResourceKind } from "../schemas";

type Json = Record<string, unknown>;
const MANAGER_PATH = `${ENTERPRISE_SCHEMA.toLowerCase()}:manager`;

/** "True"/"False" (any case) → boolean; anything else unchanged. */
export function stringToBoolean(v: unknown): unknown {
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (s === "true") return true;
    if (s === "false") return false;
  }
  return v;
}

/** Coerces one value found at attribute path `path` (lower-cased, no filters: `emails.primary`). */
export function coerceAt(kind: ResourceKind, path: string, value: unknown): unknown {
  if (path === MANAGER_PATH && typeof value === "string") return { value };
  const info = attrInfo(kind, path);
  if (!info) return value;
  if (info.type === "boolean") {
    return Array.isArray(value) ? value.map(stringToBoolean) : stringToBoolean(value);
  }
  if (info.type === "complex") {
    // nothing below it to fix (Group `members`: value, display, type, $ref — 256 of them in a typical
    // member PATCH): the value goes on as sent instead of being copied item by item
    if (!hasBooleanSubAttribute(kind, path)) return value;
    if (Array.isArray(value)) return value.map((item) => coerceObject(kind, item, path));
    if (value && typeof value === "object") return coerceObject(kind, value, path);
  }
  return value;
}

/** Coerces every attribute of an object whose attributes live under `prefix` ("" for the resource root). */
export function coerceObject(kind: ResourceKind, obj: unknown, prefix = ""): unknown {
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) return obj;
  const out: Json = {};
  for (const [key, value] of Object.entries(obj as Json)) {
    const lower = key.toLowerCase();
    if (!prefix && lower.startsWith("urn:") && value && typeof value === "object" && !Array.isArray(value)) {
      // an extension object: its attributes are addressed as "<urn>:<attr>"
      const ext: Json = {};
      for (const [k2, v2] of Object.entries(value as Json)) ext[k2] = coerceAt(kind, `${lower}:${k2.toLowerCase()}`, v2);
      out[key] = ext;
      continue;
    }
    out[key] = coerceAt(kind, prefix ? `${prefix}.${lower}` : lower, value);
  }
  return out;
}
