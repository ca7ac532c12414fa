/**
 * The generate-session request after shape checks (`check-request.ts`), and the messages the simulator
 * answers with. Messages the contract prints are word for word; the others are the simulator's wording.
 */
import type { SimAttributeType } from "../config";

/** A `groupDefinitions` / `tenantGroupDefinitions` item. */
export interface GroupDefinitionInput {
  name: string;
  description?: string;
}

/** A `userAttributeDefinitions` item. */
export interface AttributeDefinitionInput {
  name: string;
  type: SimAttributeType;
  displayName?: string;
  defaultValue?: string;
  description?: string;
}

/** The checked request body of `POST /v1/embed/generate-session`. */
export interface SessionRequest {
  deploymentId: number;
  externalId?: string;
  internalId?: string;
  email?: string;
  userProfile?: { displayName?: string; picture?: string };
  embedTenantName?: string;
  creatorMode: boolean;
  userAttributes?: { name: string; value: unknown }[];
  groups?: string[];
  userAttributeDefinitions?: AttributeDefinitionInput[];
  groupDefinitions?: GroupDefinitionInput[];
  securityContext?: Record<string, unknown>;
  settings?: Record<string, boolean>;
  tenantGroups?: string[];
  tenantGroupDefinitions?: GroupDefinitionInput[];
  embedTenantProfile?: { displayName?: string };
}

/** Fields that "may not be sent" with `internalId` (plus `email`, which is "only with `externalId`"). */
export const FORBIDDEN_WITH_INTERNAL_ID = ["groups", "userAttributes", "groupDefinitions", "userAttributeDefinitions", "securityContext", "userProfile", "email"] as const;

/** The contract's own messages, and the simulator's for failures whose text is not shown. */
export const MSG = {
  userAttributesNotFound: "User attributes not found",
  groupsNotFound: (missing: string[]) => `Groups with names ${missing.join(", ")} not found`,
  cannotChangeType: "cannot change type",
  exactlyOne: "exactly one of externalId / internalId is required",
  notWithInternalId: (field: string) => `${field} is not allowed with internalId`,
  internalUserNotFound: (id: string) => `internal user ${id} not found`,
  tenantName: "embedTenantName must be lowercase, 5 to 36 characters, start with a letter, end with a letter or digit, and contain only a-z, 0-9 and -",
  picture: "userProfile.picture must be an absolute http:// or https:// URL",
  creatorModeFlag: "creatorMode requires the useCreatorMode tenant flag",
  requiresCreatorMode: (field: string) => `${field} requires creatorMode: true`,
  requiresTenantName: (field: string) => `${field} requires an embedTenantName`,
  duplicateName: (name: string, field: string) => `duplicate name ${name} in ${field}`,
  valueType: (name: string, type: string) => `value of user attribute ${name} must match its type ${type}`,
  externalUserLimit: (limit: number) => `external user limit of ${limit} reached`,
  plan: "generate-session is available on premium and enterprise plans only",
} as const;
