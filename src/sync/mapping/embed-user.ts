/**
 * Desired SCIM user → the generate-session request that provisions it as an external user of the
 * directory's embed tenant (embed target). Creator mode with the tenant's name, and definitions for every
 * group and attribute the user references, so "definitions always exist before they are used" (the
 * contract upserts them "before `groups` and `userAttributes` are validated").
 */
import type { DirectoryConfig } from "../../config/schema";
import type { GenerateSessionRequest } from "../../platform";
import type { UserRecord } from "../../store";
import { attributeValue, firstScalar } from "./attribute-value";
import { coerceAttribute } from "./coerce-attribute";

type EmbedConfig = NonNullable<DirectoryConfig["embed"]>;

/** "lowercase and trimmed" — the platform's externalId of a SCIM user, or undefined if it has none. */
export function embedExternalId(user: UserRecord, embed: EmbedConfig): string | undefined {
  const v = firstScalar(attributeValue(user.body, embed.externalIdAttribute));
  const s = typeof v === "string" ? v.trim().toLowerCase() : typeof v === "number" ? String(v) : "";
  return s || undefined;
}

/** Embed-tenant group name of an IdP group, or undefined when the directory's filter leaves it out. */
export function embedGroupName(displayName: string, embed: EmbedConfig): string | undefined {
  if (embed.groupFilter && !new RegExp(embed.groupFilter).test(displayName)) return undefined;
  return embed.groupNameMapping[displayName] ?? displayName;
}

function displayNameOf(body: Record<string, unknown>): string | undefined {
  if (typeof body.displayName === "string" && body.displayName.trim()) return body.displayName;
  const name = body.name as Record<string, unknown> | undefined;
  if (name && typeof name.formatted === "string" && name.formatted.trim()) return name.formatted;
  const parts = [name?.givenName, name?.familyName].filter((p): p is string => typeof p === "string" && !!p.trim());
  return parts.length ? parts.join(" ") : undefined;
}

function isHttpUrl(v: unknown): v is string {
  if (typeof v !== "string") return false;
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * `picture` "must be an absolute `http://` or `https://` URL": the first photo (primary first) that is one;
 * a `data:` thumbnail or a relative photo is skipped rather than hiding a usable photo behind it.
 */
function pictureOf(body: Record<string, unknown>): string | undefined {
  const v = attributeValue(body, "photos.value");
  return (Array.isArray(v) ? v : [v]).find(isHttpUrl);
}

function definitions(dir: DirectoryConfig, embed: EmbedConfig, groups: string[]): Pick<GenerateSessionRequest, "groupDefinitions" | "userAttributeDefinitions"> {
  return {
    groupDefinitions: groups.map((name) => ({ name })),
    userAttributeDefinitions: embed.attributeMapping.map((m) => ({
      name: m.name, type: m.type, ...(m.displayName ? { displayName: m.displayName } : {}), ...(m.description ? { description: m.description } : {}),
    })),
  };
}

/** The request that makes the platform hold this user as desired. `groupNames` are embed-tenant names. */
export function embedUserRequest(dir: DirectoryConfig, user: UserRecord, externalId: string, groupNames: string[]): GenerateSessionRequest {
  const embed = dir.embed!;
  const groups = [...new Set(groupNames)].sort();
  const email = firstScalar(attributeValue(user.body, "emails.value"));
  const displayName = displayNameOf(user.body);
  const picture = pictureOf(user.body);
  return {
    deploymentId: dir.platform.deploymentId,
    externalId,
    ...(typeof email === "string" ? { email } : {}),
    userProfile: { ...(displayName ? { displayName } : {}), ...(picture ? { picture } : {}) },
    embedTenantName: embed.tenantName,
    creatorMode: true,
    groups,
    userAttributes: embed.attributeMapping.map((m) => ({ name: m.name, value: coerceAttribute(attributeValue(user.body, m.scim), m.type) })),
    ...definitions(dir, embed, groups),
  };
}

/** Deprovisioning: "memberships cleared (`groups: []`) and mapped attributes nulled". */
export function embedDeprovisionRequest(dir: DirectoryConfig, externalId: string): GenerateSessionRequest {
  const embed = dir.embed!;
  return {
    deploymentId: dir.platform.deploymentId,
    externalId,
    embedTenantName: embed.tenantName,
    creatorMode: true,
    groups: [],
    userAttributes: embed.attributeMapping.map((m) => ({ name: m.name, value: null })),
    ...definitions(dir, embed, []),
  };
}

/**
 * What to add to the platform's `cannot change type`: the attribute and the mapping entry
 * that sent it. The platform's message names neither, so the mapping entries the request defined are
 * named: the one when there is one, else each candidate.
 */
export function typeConflictDetail(embed: EmbedConfig): string {
  const entries = embed.attributeMapping.map((m, i) => `user attribute "${m.name}" as ${m.type} (embed.attributeMapping[${i}], from SCIM ${m.scim})`);
  if (entries.length === 1) return `the platform already defines ${entries[0]} with another type; change that entry's type to the platform's, or rename the attribute`;
  return `the platform already defines one of these with another type: ${entries.join("; ")}; change that entry's type to the platform's, or rename the attribute`;
}
