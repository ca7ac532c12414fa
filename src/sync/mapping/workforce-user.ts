/**
 * Desired SCIM user → the user the platform's SCIM API should hold (workforce target). The platform
 * user's `externalId` is the bridge's id of the user, which marks it as managed by this bridge (a resync
 * uses it to find users the IdP no longer has).
 */
import type { ScimUserInput } from "../../platform";
import type { UserRecord } from "../../store";

const COPIED = ["userName", "name", "displayName", "nickName", "title", "userType", "preferredLanguage", "locale", "timezone", "emails", "phoneNumbers"];

/** The bridge's marker for a platform resource it manages: `<directoryId>:<scim id>`. */
export function managedExternalId(directoryId: string, id: string): string {
  return `${directoryId}:${id}`;
}

/** Payload for create/replace; `active` defaults to true like SCIM's. */
export function workforceUserPayload(directoryId: string, user: UserRecord): ScimUserInput {
  const out: Record<string, unknown> = {};
  for (const attr of COPIED) if (user.body[attr] !== undefined) out[attr] = user.body[attr];
  out.active = user.body.active !== false;
  out.externalId = managedExternalId(directoryId, user.id);
  return out as unknown as ScimUserInput;
}
