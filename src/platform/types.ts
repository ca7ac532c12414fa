/**
 * Wire types of the platform management API as the client uses them: SCIM resources (RFC 7643), the
 * generate-session request (platform-api.md "POST /v1/embed/generate-session"), embed-tenant groups and
 * deployments. Resources are returned as the platform sent them.
 */

/** A SCIM User as returned (the platform may add attributes; they are kept). */
export interface ScimUser {
  schemas: string[];
  id: string;
  userName: string;
  active?: boolean;
  externalId?: string;
  displayName?: string;
  name?: { givenName?: string; familyName?: string; formatted?: string };
  emails?: { value: string; type?: string; primary?: boolean }[];
  meta?: { resourceType?: string; created?: string; lastModified?: string; location?: string; version?: string };
  [attribute: string]: unknown;
}

/** A SCIM User to create or replace (no id, no meta). */
export type ScimUserInput = Omit<ScimUser, "id" | "meta" | "schemas"> & { schemas?: string[] };

/** A group member reference. */
export interface ScimMember {
  value: string;
  display?: string;
}

/** A SCIM Group as returned; `members` is absent when excluded. */
export interface ScimGroup {
  schemas: string[];
  id: string;
  displayName: string;
  externalId?: string;
  members?: ScimMember[];
  meta?: ScimUser["meta"];
  [attribute: string]: unknown;
}

/** A SCIM ListResponse page. */
export interface ScimListResponse<T> {
  schemas: string[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources?: T[];
}

/** One SCIM PATCH operation. */
export interface ScimPatchOperation {
  op: "add" | "replace" | "remove";
  path?: string;
  value?: unknown;
}

/** "one of `string`, `number`, `string_array`, `number_array`, `boolean`" */
export type UserAttributeType = "string" | "number" | "string_array" | "number_array" | "boolean";

/** "a string, number, array of strings, array of numbers, boolean, or null; … null clears the value" */
export type UserAttributeValue = string | number | boolean | string[] | number[] | null;

/** `groupDefinitions` / `tenantGroupDefinitions` item. */
export interface GroupDefinition {
  name: string;
  description?: string;
}

/** `userAttributeDefinitions` item. */
export interface UserAttributeDefinition {
  name: string;
  type: UserAttributeType;
  displayName?: string;
  defaultValue?: string;
  description?: string;
}

/** Body of `POST /v1/embed/generate-session`; every field of the contract. */
export interface GenerateSessionRequest {
  deploymentId: number;
  externalId?: string;
  internalId?: string;
  email?: string;
  userProfile?: { displayName?: string; picture?: string };
  embedTenantName?: string;
  creatorMode?: boolean;
  userAttributes?: { name: string; value: UserAttributeValue }[];
  groups?: string[];
  userAttributeDefinitions?: UserAttributeDefinition[];
  groupDefinitions?: GroupDefinition[];
  securityContext?: Record<string, unknown>;
  /** "object whose keys are tri-state booleans"; known key `showDashboardChat`. */
  settings?: { showDashboardChat?: boolean; [key: string]: boolean | undefined };
  tenantGroups?: string[];
  tenantGroupDefinitions?: GroupDefinition[];
  embedTenantProfile?: { displayName?: string };
}

/** Answer of generate-session. The id is a secret: never log it. */
export interface GenerateSessionResponse {
  sessionId: string;
}

/** An embed-tenant group as listed. */
export interface EmbedTenantGroup {
  id: number;
  name: string;
  description?: string;
  [field: string]: unknown;
}

/** A cursor-paginated page (`items` + `pageInfo`). */
export interface CursorPage<T> {
  items: T[];
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
}

/** A deployment as listed; fields beyond `id` are "not shown". */
export interface Deployment {
  id: number;
  name?: string;
  [field: string]: unknown;
}
