/**
 * Shape checks of a generate-session body: every rule of platform-api.md "POST /v1/embed/generate-session"
 * that needs no stored state. Throws `SimError` (status from `statusCodes.validation`) with the contract's
 * wording; returns the typed request.
 */
import type { SimConfig } from "../config";
import { SimError } from "../sim-error";
import { FORBIDDEN_WITH_INTERNAL_ID, MSG, type SessionRequest } from "./session-request";

type Body = Record<string, unknown>;

/** "lowercase, 5 to 36 characters, starts with a letter, ends with a letter or digit, only `a-z`, `0-9`, `-`" */
export const TENANT_NAME = /^[a-z][a-z0-9-]{3,34}[a-z0-9]$/;
const ATTRIBUTE_TYPES = ["string", "number", "string_array", "number_array", "boolean"];

/** Validates `body` (deploymentId already checked) and returns it typed. */
export function checkRequest(body: Body, config: SimConfig): SessionRequest {
  const bad = (message: string) => new SimError(config.statusCodes.validation, message);
  const isObj = (v: unknown): v is Body => typeof v === "object" && v !== null && !Array.isArray(v);
  const optString = (name: string, v: unknown) => {
    if (v !== undefined && typeof v !== "string") throw bad(`${name} must be a string`);
    return v as string | undefined;
  };
  const stringArray = (name: string, v: unknown) => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw bad(`${name} must be an array of strings`);
    return v as string[];
  };

  // "exactly one of `externalId` / `internalId`"
  const hasExt = body.externalId !== undefined && body.externalId !== null;
  const hasInt = body.internalId !== undefined && body.internalId !== null;
  if (hasExt === hasInt) throw bad(MSG.exactlyOne);
  let externalId: string | undefined;
  if (hasExt) {
    if (typeof body.externalId !== "string" || !body.externalId.trim()) throw bad("externalId must be a non-empty string");
    // "lowercase and trimmed"
    externalId = body.externalId.trim().toLowerCase();
    if (config.externalIdPolicy === "reject" && externalId !== body.externalId) throw bad("externalId must be lowercase and trimmed");
  }
  if (hasInt && (typeof body.internalId !== "string" || !body.internalId)) throw bad("internalId must be a non-empty string");
  if (hasInt) {
    // "With `internalId`, none of `groups`, `userAttributes`, `groupDefinitions`, `userAttributeDefinitions`,
    // `securityContext`, `userProfile` may be sent"; `email`: "only with `externalId`"
    for (const f of FORBIDDEN_WITH_INTERNAL_ID) if (body[f] !== undefined) throw bad(MSG.notWithInternalId(f));
  }

  const embedTenantName = optString("embedTenantName", body.embedTenantName);
  if (embedTenantName !== undefined && !TENANT_NAME.test(embedTenantName)) throw bad(MSG.tenantName);
  if (body.creatorMode !== undefined && typeof body.creatorMode !== "boolean") throw bad("creatorMode must be a boolean");
  const creatorMode = body.creatorMode === true;

  let userProfile: SessionRequest["userProfile"];
  if (body.userProfile !== undefined) {
    if (!isObj(body.userProfile)) throw bad("userProfile must be an object");
    const displayName = optString("userProfile.displayName", body.userProfile.displayName);
    const picture = optString("userProfile.picture", body.userProfile.picture);
    // "`picture` must be an absolute `http://` or `https://` URL; the server validates only the URL syntax"
    if (picture !== undefined && !isHttpUrl(picture)) throw bad(MSG.picture);
    userProfile = { ...(displayName !== undefined ? { displayName } : {}), ...(picture !== undefined ? { picture } : {}) };
  }

  let settings: Record<string, boolean> | undefined;
  if (body.settings !== undefined) {
    if (!isObj(body.settings)) throw bad("settings must be an object");
    // "object whose keys are tri-state booleans. Omitted means inherit"
    for (const [k, v] of Object.entries(body.settings)) if (typeof v !== "boolean") throw bad(`settings.${k} must be a boolean`);
    settings = body.settings as Record<string, boolean>;
  }
  if (body.securityContext !== undefined && !isObj(body.securityContext)) throw bad("securityContext must be an object");
  if (body.embedTenantProfile !== undefined && (!isObj(body.embedTenantProfile) || !["string", "undefined"].includes(typeof body.embedTenantProfile.displayName))) {
    throw bad("embedTenantProfile must be an object with a string displayName");
  }

  // "Both require `creatorMode: true`, an `embedTenantName` and the `useCreatorMode` tenant flag."
  for (const f of ["groupDefinitions", "userAttributeDefinitions", "tenantGroupDefinitions"] as const) {
    if (body[f] === undefined) continue;
    if (!creatorMode) throw bad(MSG.requiresCreatorMode(f));
    if (embedTenantName === undefined) throw bad(MSG.requiresTenantName(f));
  }
  const groupDefinitions = checkDefinitions(body.groupDefinitions, "groupDefinitions", config, false);
  const tenantGroupDefinitions = checkDefinitions(body.tenantGroupDefinitions, "tenantGroupDefinitions", config, false);
  const userAttributeDefinitions = checkDefinitions(body.userAttributeDefinitions, "userAttributeDefinitions", config, true);

  let userAttributes: SessionRequest["userAttributes"];
  if (body.userAttributes !== undefined) {
    if (!Array.isArray(body.userAttributes) || body.userAttributes.some((a) => !isObj(a) || typeof a.name !== "string" || !("value" in a))) {
      throw bad("userAttributes must be an array of {name, value}");
    }
    userAttributes = body.userAttributes as { name: string; value: unknown }[];
  }

  return {
    deploymentId: body.deploymentId as number,
    externalId,
    internalId: hasInt ? (body.internalId as string) : undefined,
    email: optString("email", body.email),
    userProfile,
    embedTenantName,
    creatorMode,
    userAttributes,
    groups: stringArray("groups", body.groups),
    userAttributeDefinitions: userAttributeDefinitions as SessionRequest["userAttributeDefinitions"],
    groupDefinitions,
    securityContext: body.securityContext as Body | undefined,
    settings,
    tenantGroups: stringArray("tenantGroups", body.tenantGroups),
    tenantGroupDefinitions,
    embedTenantProfile: body.embedTenantProfile as SessionRequest["embedTenantProfile"],
  };
}

function checkDefinitions(v: unknown, field: string, config: SimConfig, typed: boolean) {
  if (v === undefined) return undefined;
  const bad = (m: string, status = config.statusCodes.validation) => new SimError(status, m);
  if (!Array.isArray(v)) throw bad(`${field} must be an array`);
  const seen = new Set<string>();
  for (const d of v as Record<string, unknown>[]) {
    if (typeof d !== "object" || d === null || typeof d.name !== "string" || !d.name) throw bad(`each ${field} item needs a name`);
    // "Duplicate `name` entries within one request are rejected."
    if (seen.has(d.name)) throw bad(MSG.duplicateName(d.name, field), config.statusCodes.duplicateDefinitions);
    seen.add(d.name);
    const optional = typed ? ["displayName", "defaultValue", "description"] : ["description"];
    for (const k of optional) if (d[k] !== undefined && typeof d[k] !== "string") throw bad(`${field}.${k} must be a string`);
    if (typed && !ATTRIBUTE_TYPES.includes(d.type as string)) throw bad(`${field}.type must be one of ${ATTRIBUTE_TYPES.join(", ")}`);
  }
  return v as { name: string; type: never; description?: string }[];
}

/** Absolute http(s) URL (syntax only; never fetched). */
export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && !!u.hostname;
  } catch {
    return false;
  }
}
