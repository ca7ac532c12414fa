/**
 * Writes an external user after every check passed (platform-api.md rules for `userProfile`,
 * `userAttributes` and `groups`).
 */
import type { EmbedTenant } from "../state";
import type { AttributeWrites } from "./resolve";
import type { SessionRequest } from "./session-request";

/** Creates or updates `req.externalId` in `tenant`. */
export function applyExternalUser(tenant: EmbedTenant, req: SessionRequest, attributes: AttributeWrites): void {
  const now = new Date().toISOString();
  const id = req.externalId!;
  let u = tenant.externalUsers.get(id);
  if (!u) {
    u = { externalId: id, userProfile: {}, groups: [], tenantGroups: [], userAttributes: {}, createdAt: now, updatedAt: now };
    tenant.externalUsers.set(id, u);
  }
  if (req.email !== undefined) u.email = req.email;
  // "Sending `userProfile` again overwrites stored values; omitting it or a property keeps the stored values."
  if (req.userProfile?.displayName !== undefined) u.userProfile.displayName = req.userProfile.displayName;
  if (req.userProfile?.picture !== undefined) u.userProfile.picture = req.userProfile.picture;
  // "a later call with the same `externalId` overwrites the values for the supplied names"; "null clears the value"
  for (const [name, value] of attributes) {
    if (value === null) delete u.userAttributes[name];
    else u.userAttributes[name] = value;
  }
  // groups: "field omitted: existing memberships kept / empty array: all memberships cleared / populated
  // array: memberships replaced by exactly the named groups"
  if (req.groups !== undefined) u.groups = [...new Set(req.groups)];
  if (req.tenantGroups !== undefined) u.tenantGroups = [...new Set(req.tenantGroups)];
  u.updatedAt = now;
}
