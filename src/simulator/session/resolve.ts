/**
 * Resolution of `userAttributes`, `groups` and `tenantGroups` of a generate-session request against the
 * applicable catalogs: tenant-wide without creator mode, the embed tenant's scoped tables in creator mode.
 * Runs after definitions are upserted, so definitions in the same request count.
 */
import type { SimAttributeType, SimConfig } from "../config";
import { SimError } from "../sim-error";
import type { AttributeValue, EmbedTenant, SimState } from "../state";
import { MSG, type SessionRequest } from "./session-request";

/** Attribute writes: a value to store, or null to clear. */
export type AttributeWrites = Map<string, AttributeValue | null>;

/** Validates `userAttributes` and returns the writes to make. */
export function resolveAttributes(state: SimState, tenant: EmbedTenant, req: SessionRequest, config: SimConfig): AttributeWrites {
  const writes: AttributeWrites = new Map();
  if (!req.userAttributes) return writes;
  const bad = (m: string) => new SimError(config.statusCodes.validation, m);
  // "Duplicate `name` entries are rejected with 400."
  const seen = new Set<string>();
  for (const a of req.userAttributes) {
    if (seen.has(a.name)) throw new SimError(400, MSG.duplicateName(a.name, "userAttributes"));
    seen.add(a.name);
  }
  for (const a of req.userAttributes) {
    // "Without creator mode, names resolve against the tenant-wide attribute catalog; a missing name fails
    // with the message `User attributes not found`." / "In creator mode, names resolve against the embed
    // tenant's scoped catalog"
    const type = req.creatorMode ? tenant.attributes.get(a.name)?.type : state.tenantWideAttributeType(a.name);
    if (!type) throw new SimError(config.statusCodes.userAttributesNotFound, MSG.userAttributesNotFound);
    // "its type must match the attribute definition's `type`; null clears the value"
    if (a.value !== null && !matchesType(a.value, type)) throw bad(MSG.valueType(a.name, type));
    writes.set(a.name, a.value as AttributeValue | null);
  }
  return writes;
}

/** Checks that every name of `groups` / `tenantGroups` resolves. */
export function resolveGroups(state: SimState, tenant: EmbedTenant, req: SessionRequest, config: SimConfig): void {
  const fail = (missing: string[]) => new SimError(config.statusCodes.groupsNotFound, MSG.groupsNotFound(missing));
  // "Without creator mode, names resolve against tenant-wide groups; in creator mode against the embed
  // tenant's scoped groups. An unresolvable name fails with the message `Groups with names <missing> not found`."
  const missing = (req.groups ?? []).filter((g) => (req.creatorMode ? !tenant.groups.has(g) : !state.tenantWideGroupExists(g)));
  if (missing.length) throw fail(missing);
  const missingTenant = (req.tenantGroups ?? []).filter((g) => !tenant.tenantGroups.has(g));
  if (missingTenant.length) throw fail(missingTenant);
}

/** "`value` is a string, number, array of strings, array of numbers, boolean, or null". */
export function matchesType(v: unknown, type: SimAttributeType): boolean {
  switch (type) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "boolean":
      return typeof v === "boolean";
    case "string_array":
      return Array.isArray(v) && v.every((x) => typeof x === "string");
    case "number_array":
      return Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isFinite(x));
  }
}
