/**
 * PATCH operations whose `path` is a whole schema extension (`urn:…:enterprise:2.0:User`), which SCIMMY
 * cannot apply (a remove failed with "Cannot convert undefined or null to object", an add with a
 * `schemas` key in the value with "object is not extensible"):
 * - `add` / `replace` with an object value become one operation per attribute of the value, so the
 *   extension is merged: [RFC7644§3.5.2.1] add: "If the target location specifies a complex attribute, a
 *   set of sub-attributes SHALL be specified in the "value" parameter" and [RFC7644§3.5.2.3] replace:
 *   "Sub-attributes that are not specified in the "value" parameter are left unchanged". A `schemas` key
 *   inside the value names the extension itself and is ignored;
 * - `remove` clears the extension: [RFC7644§3.5.2.2] "If the target location is a single-value attribute,
 *   the attribute and its associated value is removed". It becomes a remove of every attribute the
 *   resource holds in it at that point (users.ts), and the URN leaves `schemas` (syncExtensionSchemas).
 */
import { ScimError } from "../errors";
import { ENTERPRISE_SCHEMA, type ResourceKind } from "../schemas";
import { currentExtensions } from "../extensions/declared";
import { coerceAt } from "./coerce-values";
import type { PatchOperation } from "./patch-request";

type Json = Record<string, unknown>;

/** The extension schemas of each resource type that SCIMMY defines. */
export const EXTENSIONS: Record<ResourceKind, string[]> = { User: [ENTERPRISE_SCHEMA], Group: [] };

/** The extension schemas of a resource type for the current request: SCIMMY's and the directory's declared ones. */
export function extensionUrns(kind: ResourceKind): string[] {
  const declared = kind === "User" ? currentExtensions() : undefined;
  return declared && !declared.empty ? [...EXTENSIONS[kind], ...declared.list.map((e) => e.urn)] : EXTENSIONS[kind];
}

/** The extension URN `path` names as a whole (case-insensitive), or undefined. */
export function wholeExtension(kind: ResourceKind, path: string | undefined): string | undefined {
  if (!path) return undefined;
  const lower = path.trim().toLowerCase();
  return extensionUrns(kind).find((urn) => urn.toLowerCase() === lower);
}

/** An add/replace on a whole extension as one operation per attribute; other operations unchanged. */
export function expandExtensionOp(kind: ResourceKind, op: PatchOperation, index: number): PatchOperation[] {
  const urn = wholeExtension(kind, op.path);
  if (!urn || op.op === "remove") return [op];
  if (!op.value || typeof op.value !== "object" || Array.isArray(op.value)) {
    throw new ScimError(400, "invalidValue", `Operation ${index + 1} ('${op.op}' on ${urn}) needs an object of the extension's attributes as its value`);
  }
  return Object.entries(op.value as Json)
    .filter(([k]) => k.toLowerCase() !== "schemas")
    .map(([k, v]) => {
      const path = `${urn}:${k}`;
      return v === null ? { op: "remove" as const, path } : { op: op.op, path, value: coerceAt(kind, path.toLowerCase(), v) };
    });
}

/** The removes that clear extension `urn` of `resource` (one per attribute it holds there). */
export function clearExtension(urn: string, resource: Json): PatchOperation[] {
  const key = Object.keys(resource).find((k) => k.toLowerCase() === urn.toLowerCase());
  const ext = key ? resource[key] : undefined;
  if (!ext || typeof ext !== "object" || Array.isArray(ext)) return [];
  return Object.keys(ext as Json).map((attr) => ({ op: "remove" as const, path: `${urn}:${attr}` }));
}

/**
 * `schemas` in step with the extensions a body holds ([RFC7643§3]: "schemas … MUST only contain values
 * defined as "schema" and "schemaExtensions" for the resource's defined "resourceType""): an extension
 * object left empty is dropped together with its URN; one that holds attributes has its URN listed.
 */
export function syncExtensionSchemas(kind: ResourceKind, body: Json): Json {
  const out: Json = { ...body };
  let schemas = Array.isArray(out.schemas) ? [...(out.schemas as unknown[])] : undefined;
  for (const urn of extensionUrns(kind)) {
    const key = Object.keys(out).find((k) => k.toLowerCase() === urn.toLowerCase());
    const ext = key ? out[key] : undefined;
    const filled = !!ext && typeof ext === "object" && !Array.isArray(ext) && Object.keys(ext as Json).length > 0;
    if (key && !filled) delete out[key];
    const listed = (schemas ?? []).some((s) => typeof s === "string" && s.toLowerCase() === urn.toLowerCase());
    if (filled && !listed) schemas = [...(schemas ?? []), urn];
    if (!filled && listed) schemas = schemas!.filter((s) => !(typeof s === "string" && s.toLowerCase() === urn.toLowerCase()));
  }
  if (schemas) out.schemas = schemas;
  return out;
}
