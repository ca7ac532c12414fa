/**
 * A User body (POST, PUT) split into what SCIMMY validates, the declared extension attributes the bridge
 * validates itself (values.ts), and the attributes this directory does not have, which are ignored.
 * [RFC7644§3.3]: "Since the server is free to alter and/or ignore POSTed content, returning the full
 * representation can be useful to the client"; the same holds for PUT ([RFC7644§3.5.1] "attributes that
 * are not supported … SHALL be ignored" is the reading of draft-zollner-scim-interop-profile's lenient
 * mode). Each ignored attribute is named by its path (`urn:…:CustomExtensionName:2.0:User:CostCenterCode`,
 * `nickname2`, `name.middle`) so the operator can see it (ignored.ts); strict mode refuses it instead.
 */
import { ScimError } from "../errors";
import { attrInfo, ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from "../schemas";
import type { DeclaredExtensions } from "./declared";
import { declaredValue } from "./values";

type Json = Record<string, unknown>;

const META_KEYS = new Set(["schemas", "id", "meta"]);
const ENTERPRISE = ENTERPRISE_SCHEMA.toLowerCase();
const CORE_PREFIX = `${USER_SCHEMA.toLowerCase()}:`;
const GROUP_CORE_PREFIX = `${GROUP_SCHEMA.toLowerCase()}:`;
const SCIMMY_URNS_CORE = USER_SCHEMA.toLowerCase();
const SCIMMY_URNS = new Set([SCIMMY_URNS_CORE, ENTERPRISE]);

export interface BodyParts {
  /** What SCIMMY validates: core and enterprise attributes, `schemas` with only their URNs. */
  known: Json;
  /** Declared extension objects by their configured URN, values checked. */
  declared: Json;
  /** Paths of the attributes left out, as the request wrote them. */
  ignored: string[];
}

function isObject(v: unknown): v is Json {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** A complex attribute's value without sub-attributes the schema does not define (each one reported). */
function knownSubAttributes(base: string, key: string, value: unknown, ignored: string[]): unknown {
  const strip = (item: unknown): unknown => {
    if (!isObject(item)) return item;
    let out: Json | undefined;
    for (const sub of Object.keys(item)) {
      if (attrInfo("User", `${base}.${sub.toLowerCase()}`)) continue;
      out ??= { ...item };
      delete out[sub];
      if (!ignored.includes(`${key}.${sub}`)) ignored.push(`${key}.${sub}`);
    }
    return out ?? item;
  };
  return Array.isArray(value) ? value.map(strip) : strip(value);
}

/** Puts one declared attribute's checked value into `declared` (configured spellings of URN and name). */
function putDeclared(exts: DeclaredExtensions, declared: Json, path: string, value: unknown, ignored: string[]): void {
  const hit = exts.attribute(path);
  if (!hit) { ignored.push(path); return; }
  const v = declaredValue(hit.ext, hit.attr, path, value);
  if (v === undefined) return;
  const obj = (declared[hit.ext.urn] ??= {}) as Json;
  obj[hit.attr.name] = v;
}

/** Splits a User request body (see the file header). */
export function partitionUserBody(raw: Json, exts: DeclaredExtensions): BodyParts {
  const known: Json = {};
  const declared: Json = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const lower = key.toLowerCase();
    if (META_KEYS.has(lower)) {
      // `schemas` keeps the URNs SCIMMY knows (a declared one is put back by withDeclaredSchemas; others go, [RFC7643§3])
      // (a list without the core URN is left for SCIMMY to refuse)
      known[key] = lower === "schemas" && Array.isArray(value) && value.some((u) => typeof u === "string" && u.toLowerCase() === SCIMMY_URNS_CORE)
        ? value.filter((u) => !(typeof u === "string" && /^urn:/i.test(u) && !SCIMMY_URNS.has(u.toLowerCase())))
        : value;
      continue;
    }
    if (lower.startsWith("urn:")) {
      const ext = exts.extension(key);
      if (ext || (isObject(value) && lower !== ENTERPRISE && !attrInfo("User", lower) && !exts.extensionOf(lower))) {
        // a whole extension object: declared (each attribute checked) or unknown (each attribute ignored)
        if (value === null || value === undefined) continue;
        if (!isObject(value)) throw new ScimError(400, "invalidValue", `'${key}' must be an object of the extension's attributes`);
        for (const [name, v] of Object.entries(value)) {
          if (name.toLowerCase() === "schemas") continue;
          if (ext) putDeclared(exts, declared, `${ext.urn}:${name}`, v, ignored);
          else ignored.push(`${key}:${name}`);
        }
        if (!ext && Object.keys(value).length === 0) ignored.push(key);
        continue;
      }
      if (lower === ENTERPRISE && isObject(value)) {
        known[key] = value;
        stripUnknownEnterprise(key, known, ignored);
        continue;
      }
      // an attribute written with its schema's URN (`urn:…:User:costCenter`)
      if (exts.extensionOf(lower)) { putDeclared(exts, declared, key, value, ignored); continue; }
      const bare = lower.startsWith(CORE_PREFIX) ? lower.slice(CORE_PREFIX.length) : lower;
      if (attrInfo("User", bare)) known[key] = value;
      else ignored.push(key);
      continue;
    }
    const info = attrInfo("User", lower);
    if (!info) { ignored.push(key); continue; }
    known[key] = info.type === "complex" ? knownSubAttributes(lower, key, value, ignored) : value;
  }
  return { known, declared, ignored };
}

/** The enterprise extension object without attributes the enterprise schema does not define. */
function stripUnknownEnterprise(key: string, known: Json, ignored: string[]): void {
  const obj = known[key] as Json;
  let out: Json | undefined;
  for (const name of Object.keys(obj)) {
    if (name.toLowerCase() === "schemas" || attrInfo("User", `${ENTERPRISE}:${name.toLowerCase()}`)) continue;
    out ??= { ...obj };
    delete out[name];
    ignored.push(`${key}:${name}`);
  }
  if (out) known[key] = out;
}

/**
 * `schemas` in step with the declared extensions `body` holds ([RFC7643§3] "schemas … MUST only contain
 * values defined as "schema" and "schemaExtensions""): a filled one listed, an absent one not.
 */
export function withDeclaredSchemas(body: Json, exts: DeclaredExtensions): Json {
  if (exts.empty) return body;
  const schemas = (Array.isArray(body.schemas) ? body.schemas : [USER_SCHEMA]).filter((u) => !(typeof u === "string" && exts.extension(u)));
  for (const ext of exts.list) {
    const v = body[ext.urn];
    if (isObject(v) && Object.keys(v).length) schemas.push(ext.urn);
    else delete body[ext.urn];
  }
  body.schemas = schemas;
  return body;
}

/**
 * Paths of a Group body's attributes that a Group does not have (SCIMMY drops them; they are reported
 * like a User's, extensions/ignored.ts). Groups have no declared extensions: every extension attribute is one.
 */
export function ignoredGroupAttributes(raw: unknown): string[] {
  if (!isObject(raw)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const lower = key.toLowerCase();
    if (META_KEYS.has(lower) || lower === "members") continue;
    if (lower.startsWith("urn:") && isObject(value)) {
      const names = Object.keys(value).filter((n) => n.toLowerCase() !== "schemas");
      out.push(...(names.length ? names.map((n) => `${key}:${n}`) : [key]));
    } else if (!attrInfo("Group", lower.startsWith(GROUP_CORE_PREFIX) ? lower.slice(GROUP_CORE_PREFIX.length) : lower)) {
      out.push(key);
    }
  }
  return out;
}
