/**
 * Upsert of `groupDefinitions`, `tenantGroupDefinitions` and `userAttributeDefinitions` into one embed
 * tenant's scope (platform-api.md "Rules for `groupDefinitions` and `userAttributeDefinitions`").
 */
import type { SimConfig } from "../config";
import { SimError } from "../sim-error";
import type { EmbedGroup, EmbedTenant, SimState } from "../state";
import { MSG, type AttributeDefinitionInput, type GroupDefinitionInput, type SessionRequest } from "./session-request";

/**
 * Checks type immutability, then upserts every definition of `req` into `tenant`. Idempotent: "The same
 * request twice gives the same end state." Never touches tenant-wide groups or attributes.
 */
export function upsertDefinitions(state: SimState, tenant: EmbedTenant, req: SessionRequest, config: SimConfig): void {
  // "`type` is immutable: when a definition of the same `name` exists with another `type`, the request
  // fails with the message `cannot change type` and nothing is upserted."
  for (const d of req.userAttributeDefinitions ?? []) {
    const existing = tenant.attributes.get(d.name);
    if (existing && existing.type !== d.type) throw new SimError(config.statusCodes.cannotChangeType, MSG.cannotChangeType);
  }
  for (const d of req.groupDefinitions ?? []) upsertGroup(state, tenant.groups, d);
  for (const d of req.tenantGroupDefinitions ?? []) upsertGroup(state, tenant.tenantGroups, d);
  for (const d of req.userAttributeDefinitions ?? []) upsertAttribute(state, tenant, d);
}

/** "an existing group of that name is reused"; description "updated when supplied and different; never cleared". */
function upsertGroup(state: SimState, groups: Map<string, EmbedGroup>, d: GroupDefinitionInput): void {
  const existing = groups.get(d.name);
  if (!existing) {
    groups.set(d.name, { id: state.embedId(), name: d.name, ...(d.description ? { description: d.description } : {}) });
    return;
  }
  if (d.description && d.description !== existing.description) existing.description = d.description;
}

/** `displayName`, `defaultValue`, `description`: "optional strings; updated when supplied and different". */
function upsertAttribute(state: SimState, tenant: EmbedTenant, d: AttributeDefinitionInput): void {
  const existing = tenant.attributes.get(d.name);
  if (!existing) {
    const { name, type, displayName, defaultValue, description } = d;
    tenant.attributes.set(name, {
      id: state.embedId(),
      name,
      type,
      ...(displayName !== undefined ? { displayName } : {}),
      ...(defaultValue !== undefined ? { defaultValue } : {}),
      ...(description !== undefined ? { description } : {}),
    });
    return;
  }
  for (const k of ["displayName", "defaultValue", "description"] as const) {
    const v = d[k];
    if (v !== undefined && v !== "" && v !== existing[k]) existing[k] = v;
  }
}
