/**
 * Request bodies → stored bodies: dialect value fixes first, then SCIMMY's schema coercion (type checks,
 * required attributes, unknown attributes dropped, readOnly and writeOnly ones — `groups`, `password` —
 * left out), done without SCIMMY's instances for the bodies IdPs send (fast-coerce.ts). `id` and `meta`
 * are the server's.
 */
import SCIMMY from "scimmy";
import { ScimError } from "../errors";
import { fromScimmy } from "../scimmy-errors";
import { assertNoControlCharacters } from "../control-characters";
import { assertIdentifierLengths, DEFAULT_MAX_IDENTIFIER_LENGTH } from "../identifier-length";
import { coerceObject } from "../dialects/coerce-values";
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA, setupScimmy } from "../schemas";
import { fastCoerce } from "./fast-coerce";
import { currentExtensions } from "../extensions/declared";
import { partitionUserBody, withDeclaredSchemas } from "../extensions/body";

type Json = Record<string, unknown>;

function requireObject(raw: unknown, what: string): Json {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new ScimError(400, "invalidSyntax", `${what} body must be a JSON object`);
  return raw as Json;
}

/**
 * Checks a body about to be stored (after coercion, or after a PATCH was applied): control characters
 * (control-characters.ts), identifier lengths (identifier-length.ts) and a non-blank name. [RFC7643§4.1.1](https://datatracker.ietf.org/doc/html/rfc7643#section-4.1.1):
 * "Each User MUST include a non-empty userName value"; §4.2: a Group's displayName is "REQUIRED". SCIMMY
 * accepts "" for both, which took the empty userName in the unique index.
 */
export function checkBody(kind: "User" | "Group", body: Json, maxIdentifierLength = DEFAULT_MAX_IDENTIFIER_LENGTH): void {
  assertNoControlCharacters(body);
  assertIdentifierLengths(body, maxIdentifierLength);
  const name = kind === "User" ? "userName" : "displayName";
  if (typeof body[name] !== "string" || !(body[name] as string).trim()) throw new ScimError(400, "invalidValue", `${name} must be a non-empty string`);
}

const OWN_SCHEMAS = { User: [USER_SCHEMA, ENTERPRISE_SCHEMA], Group: [GROUP_SCHEMA] };

/**
 * `schemas` without URIs the resource type does not have (SCIMMY keeps whatever else was sent, and an
 * IdP's unknown extension's attributes are dropped anyway). [RFC7643§3](https://datatracker.ietf.org/doc/html/rfc7643#section-3):
 * "The "schemas" attribute for a resource MUST only contain values defined as "schema" and
 * "schemaExtensions" for the resource's defined "resourceType"."
 */
function ownSchemas(kind: "User" | "Group", schemas: unknown): unknown {
  if (!Array.isArray(schemas)) return schemas;
  const own = OWN_SCHEMAS[kind];
  return schemas.filter((u) => typeof u === "string" && own.some((o) => o.toLowerCase() === u.toLowerCase()));
}

/** SCIMMY's coercion of a body the dialect fixes were applied to: the reference, and the path for every unusual body. */
export function coerceWithScimmy(kind: "User" | "Group", fixed: Json): Json {
  setupScimmy();
  try {
    const Schema = kind === "User" ? SCIMMY.Schemas.User : SCIMMY.Schemas.Group;
    const body = JSON.parse(JSON.stringify(new Schema(fixed, "in"))) as Json;
    delete body.id;
    delete body.meta;
    return body;
  } catch (err) {
    throw fromScimmy(err, `The ${kind} body`);
  }
}

/** Dialect fixes, then one validation: the fast path for the bodies IdPs send (fast-coerce.ts), SCIMMY for the rest. */
function coerce(kind: "User" | "Group", raw: Json, maxIdentifierLength: number): Json {
  const fixed = coerceObject(kind, raw) as Json;
  const body = fastCoerce(kind, fixed) ?? coerceWithScimmy(kind, fixed);
  body.schemas = ownSchemas(kind, body.schemas);
  checkBody(kind, body, maxIdentifierLength);
  return body;
}

/**
 * A validated user body, and the paths of the attributes left out because the directory does not have
 * them (extensions/body.ts). The directory's declared extension attributes are checked here, not by SCIMMY.
 */
export function userBody(raw: unknown, maxIdentifierLength = DEFAULT_MAX_IDENTIFIER_LENGTH): { body: Json; ignored: string[] } {
  const exts = currentExtensions();
  const parts = partitionUserBody(requireObject(raw, "User"), exts);
  const body = coerce("User", parts.known, maxIdentifierLength);
  delete body.groups;
  if (!exts.empty) withDeclaredSchemas(Object.assign(body, parts.declared), exts);
  return { body, ignored: parts.ignored };
}

/**
 * A validated group body, and its members when the request carried `members` (absent: undefined).
 * `skipped` as in memberList.
 */
export function groupBody(raw: unknown, skipped?: string[], maxIdentifierLength = DEFAULT_MAX_IDENTIFIER_LENGTH): { body: Json; members?: Array<{ value: string; display?: string }> } {
  const obj = requireObject(raw, "Group");
  const key = Object.keys(obj).find((k) => k.toLowerCase() === "members");
  const rawMembers = key ? obj[key] : undefined;
  const rest = { ...obj };
  if (key) delete rest[key];
  const body = coerce("Group", rest, maxIdentifierLength);
  delete body.members;
  if (key === undefined || rawMembers === null) return { body, ...(rawMembers === null ? { members: [] } : {}) };
  return { body, members: memberList(rawMembers, skipped) };
}

/**
 * `[{value, display?}]` from a members value (array or single object); 400 on anything else.
 * With `skipped` (a lenient directory), a bare string where a member object belongs (`"value": "<id>"`
 * sent without its object) is taken as a member id that does not exist: left out and added to `skipped`.
 */
export function memberList(raw: unknown, skipped?: string[]): Array<{ value: string; display?: string }> {
  if (skipped && typeof raw === "string") { skipped.push(raw); return []; }
  const items = Array.isArray(raw) ? raw : raw && typeof raw === "object" ? [raw] : null;
  if (!items) throw new ScimError(400, "invalidValue", "members must be an array of {\"value\": \"<id>\"} objects");
  const out: Array<{ value: string; display?: string }> = [];
  for (const m of items) {
    if (skipped && typeof m === "string") { skipped.push(m); continue; }
    const value = m && typeof m === "object" ? (m as Json).value : undefined;
    if (typeof value !== "string" || !value) throw new ScimError(400, "invalidValue", "every member needs a string \"value\" (the member's id)");
    const display = (m as Json).display;
    assertNoControlCharacters(display, "members.display");
    // two literals, not a spread: the spread built an empty object and a slow copy per member
    out.push(typeof display === "string" && display ? { value, display } : { value });
  }
  return out;
}
