/**
 * Client-side pre-flight of a generate-session request: the contract's rules that need no platform state,
 * checked before the network so a bad request fails with the contract's own wording. Returns the request
 * with `externalId` trimmed and lower-cased ("lowercase and trimmed").
 */
import { ValidationError } from "./errors/validation-error";
import type { GenerateSessionRequest } from "./types";

/** "lowercase, 5 to 36 characters, starts with a letter, ends with a letter or digit, only `a-z`, `0-9`, `-`" */
export const EMBED_TENANT_NAME = /^[a-z][a-z0-9-]{3,34}[a-z0-9]$/;

/** Fields that "may not be sent" with `internalId`, plus `email` ("only with `externalId`"). */
export const FORBIDDEN_WITH_INTERNAL_ID = ["groups", "userAttributes", "groupDefinitions", "userAttributeDefinitions", "securityContext", "userProfile", "email"] as const;

const TYPES = ["string", "number", "string_array", "number_array", "boolean"];

function refuse(message: string): never {
  throw new ValidationError(400, message, undefined, undefined, true);
}

/** Throws ValidationError (`preflight: true`) on a contract violation; returns the normalised request. */
export function preflightGenerateSession(input: GenerateSessionRequest): GenerateSessionRequest {
  const req: GenerateSessionRequest = { ...input };
  if (!Number.isInteger(req.deploymentId)) refuse("deploymentId is required and must be a number");
  // "exactly one of `externalId` / `internalId`"
  if ((req.externalId === undefined) === (req.internalId === undefined)) refuse("exactly one of externalId / internalId is required");
  if (req.externalId !== undefined) {
    // "lowercase and trimmed"
    req.externalId = req.externalId.trim().toLowerCase();
    if (!req.externalId) refuse("externalId must be a non-empty string");
  } else {
    if (!req.internalId) refuse("internalId must be a non-empty string");
    // "With `internalId`, none of `groups`, `userAttributes`, `groupDefinitions`, `userAttributeDefinitions`,
    // `securityContext`, `userProfile` may be sent"
    for (const f of FORBIDDEN_WITH_INTERNAL_ID) if (req[f] !== undefined) refuse(`${f} is not allowed with internalId`);
  }
  if (req.embedTenantName !== undefined && !EMBED_TENANT_NAME.test(req.embedTenantName)) {
    refuse("embedTenantName must be lowercase, 5 to 36 characters, start with a letter, end with a letter or digit, and contain only a-z, 0-9 and -");
  }
  // "`picture` must be an absolute `http://` or `https://` URL"
  const picture = req.userProfile?.picture;
  if (picture !== undefined && !isHttpUrl(picture)) refuse("userProfile.picture must be an absolute http:// or https:// URL");
  for (const [k, v] of Object.entries(req.settings ?? {})) if (v !== undefined && typeof v !== "boolean") refuse(`settings.${k} must be a boolean`);

  // "Both require `creatorMode: true`, an `embedTenantName` and the `useCreatorMode` tenant flag."
  for (const f of ["groupDefinitions", "userAttributeDefinitions", "tenantGroupDefinitions"] as const) {
    const defs = req[f];
    if (defs === undefined) continue;
    if (req.creatorMode !== true) refuse(`${f} requires creatorMode: true`);
    if (req.embedTenantName === undefined) refuse(`${f} requires an embedTenantName`);
    // "Duplicate `name` entries within one request are rejected."
    duplicates(defs.map((d) => d.name), f);
  }
  for (const d of req.userAttributeDefinitions ?? []) if (!TYPES.includes(d.type)) refuse(`userAttributeDefinitions.type must be one of ${TYPES.join(", ")}`);
  if (req.userAttributes) {
    // "Duplicate `name` entries are rejected with 400."
    duplicates(req.userAttributes.map((a) => a.name), "userAttributes");
    // "`value` is a string, number, array of strings, array of numbers, boolean, or null"
    for (const a of req.userAttributes) if (!isAttributeValue(a.value)) refuse(`value of user attribute ${a.name} must be a string, number, array of strings, array of numbers, boolean or null`);
  }
  return req;
}

function duplicates(names: string[], field: string): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) refuse(`duplicate name ${n} in ${field}`);
    seen.add(n);
  }
}

function isAttributeValue(v: unknown): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) return true;
  return Array.isArray(v) && (v.every((x) => typeof x === "string") || v.every((x) => typeof x === "number" && Number.isFinite(x)));
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && !!u.hostname;
  } catch {
    return false;
  }
}
