/**
 * The platform simulator's configuration (the JSON file named by SIM_CONFIG), as one zod schema.
 * Everything platform-api.md marks "not shown" that the simulator has to decide is a key here, with the
 * default documented in docs/platform-simulator.md.
 */
import { z } from "zod";
import { faultsSchema } from "./faults-schema";

/** Attribute types: "one of `string`, `number`, `string_array`, `number_array`, `boolean`". */
export const simAttributeTypeSchema = z.enum(["string", "number", "string_array", "number_array", "boolean"]);

const apiKeySchema = z.strictObject({
  /** The key as sent in `Authorization`; never printed in full. */
  key: z.string().min(8),
  name: z.string().optional(),
  /** "An API key may be scoped to specific deployments"; `"all"` is an unscoped key. */
  deployments: z.union([z.literal("all"), z.array(z.number().int().nonnegative())]).default("all"),
  /** After this instant the key is "expired" (401). */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  /** "The embed-tenant admin endpoints require admin access" (roles are not shown: one flag). */
  admin: z.boolean().default(true),
});

/** Status codes of failures whose code the contract does not show. All default to 400. */
const statusCodesSchema = z
  .strictObject({
    validation: z.number().int().min(400).max(499).default(400),
    userAttributesNotFound: z.number().int().min(400).max(499).default(400),
    groupsNotFound: z.number().int().min(400).max(499).default(400),
    cannotChangeType: z.number().int().min(400).max(499).default(400),
    duplicateDefinitions: z.number().int().min(400).max(499).default(400),
    internalUserNotFound: z.number().int().min(400).max(499).default(400),
    externalUserLimit: z.number().int().min(400).max(499).default(400),
    creatorModeNotEnabled: z.number().int().min(400).max(499).default(400),
    planNotAvailable: z.number().int().min(400).max(499).default(400),
    deploymentNotFound: z.number().int().min(400).max(499).default(400),
  })
  .prefault({});

export const simConfigSchema = z.strictObject({
  tenant: z
    .strictObject({
      /** The current tenant: where external users go when `embedTenantName` is omitted. */
      name: z.string().min(1).default("default"),
      /** "Plan availability: premium and enterprise plans." */
      plan: z.enum(["free", "team", "premium", "enterprise"]).default("enterprise"),
      /** Tenant flag that creator mode and definitions require. */
      useCreatorMode: z.boolean().default(true),
      /** "external users per account: 10,000 (raisable through support)". */
      externalUserLimit: z.number().int().positive().default(10000),
    })
    .prefault({}),
  apiKeys: z.array(apiKeySchema).default([]),
  deployments: z.array(z.strictObject({ id: z.number().int().nonnegative(), name: z.string() })).default([]),
  /** Usernames of internal users that exist before any SCIM call (SCIM-created users count too). */
  internalUsers: z.array(z.string().min(1)).default([]),
  /** Tenant-wide group names (SCIM-created groups count too). */
  groups: z.array(z.string().min(1)).default([]),
  /** Tenant-wide user-attribute catalog. */
  userAttributes: z.array(z.strictObject({ name: z.string().min(1), type: simAttributeTypeSchema })).default([]),
  /**
   * What a deployment-scoped key gets on account-level paths (SCIM Users/Groups, embed-tenant admin),
   * which target no deployment: "forbid" answers 403, "allow" lets it through. The contract says only that
   * "An unscoped API key grants full access to the account's resources".
   */
  scopedKeyAccountAccess: z.enum(["forbid", "allow"]).default("forbid"),
  /** "`externalId` … lowercase and trimmed": "normalise" trims and lower-cases it; "reject" answers 400 otherwise. */
  externalIdPolicy: z.enum(["normalise", "reject"]).default("normalise"),
  statusCodes: statusCodesSchema,
  paging: z
    .strictObject({
      scimDefaultCount: z.number().int().positive().default(100),
      scimMaxCount: z.number().int().positive().default(1000),
      /** "Page size bounds of `first`: not shown." */
      cursorDefaultFirst: z.number().int().positive().default(50),
      cursorMaxFirst: z.number().int().positive().default(500),
    })
    .prefault({}),
  /** The `/_sim` endpoints need this header with this token (a test credential, not a platform key). */
  admin: z
    .strictObject({ header: z.string().min(1).default("x-sim-token"), token: z.string().min(1).default("sim-admin-token") })
    .prefault({}),
  faults: faultsSchema.prefault({}),
});

/** Simulator config as written. */
export type SimConfigInput = z.input<typeof simConfigSchema>;
/** Simulator config after defaults. */
export type SimConfig = z.output<typeof simConfigSchema>;
/** One API key entry. */
export type SimApiKey = SimConfig["apiKeys"][number];
/** An attribute type. */
export type SimAttributeType = z.output<typeof simAttributeTypeSchema>;
