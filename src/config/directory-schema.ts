/**
 * One directory's configuration (`directories[]`), as zod schemas: its SCIM tokens, target, platform
 * account, embed or workforce settings, rate limit, safeguards, strict mode, request log and declared
 * extensions. `schema.ts` puts it in the bridge's whole configuration.
 */
import { z } from "zod";
import { extensionsSchema, undeclaredExtensionOf } from "./extensions";
import { strictObject } from "./strict-object";

/** A hex SHA-256 digest, optionally written `sha256:<hex>`. Config never holds a token, only its hash. */
export const sha256Hex = z
  .string()
  .transform((s) => s.replace(/^sha256:/i, "").toLowerCase())
  .pipe(z.string().regex(/^[0-9a-f]{64}$/, "expected a SHA-256 hex digest (64 hex characters); run `scim-bridge token new <directory>` to make one"));

/**
 * Directory ids appear in the SCIM base URL (`/scim/v2/{id}`), in Redis hash tags (`{id}`) and in BullMQ
 * job ids, so they are restricted to characters that are safe in all three (Okta also rejects `_` in base URLs).
 */
export const DIRECTORY_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Attribute types of the platform contract: "one of `string`, `number`, `string_array`, `number_array`, `boolean`". */
export const attributeTypeSchema = z.enum(["string", "number", "string_array", "number_array", "boolean"]);

const rateLimitSchema = strictObject({
  /** Calls allowed per window for this directory (platform rate limits are "not shown": set them from your plan). */
  max: z.number().int().positive().default(50),
  durationMs: z.number().int().positive().default(1000),
});

const platformSchema = strictObject({
  /** The platform's {base_url}: it "already includes the `/api` path prefix", e.g. https://acme.example.com/api */
  baseUrl: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, "")),
  /**
   * Accept a plain `http://` baseUrl on a non-loopback host. "Only HTTPS is accepted" by the platform, so
   * this is for a simulator in another container (the compose `demo` profile) and nothing else.
   */
  allowPlainHttp: z.boolean().default(false),
  /** Deployment the key must cover; checked at start with GET /v1/deployments. */
  deploymentId: z.number().int().nonnegative(),
  /** Name of the environment variable that holds the platform API key (the key itself never goes in a file). */
  apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, "expected an environment variable name such as PLATFORM_API_KEY"),
  timeoutMs: z.number().int().positive().default(10000),
  /** Concurrent in-flight platform calls from one worker process for this directory. */
  maxConnections: z.number().int().positive().default(16),
  /** Members per platform SCIM group PATCH (batching of membership deltas). */
  memberBatchSize: z.number().int().positive().max(10000).default(100),
  /** Page size of embed-tenant group cursors ("page size bounds of `first`: not shown"). */
  pageSize: z.number().int().positive().max(1000).default(100),
  /**
   * `count` of platform SCIM list reads (resync): the largest page the platform accepts, so a resync makes
   * as few list calls as it can. The contract shows no bound; a platform that caps `count` lower answers
   * shorter pages (RFC 7644 §3.4.2.4), which the bridge follows to the end, only with more calls.
   */
  scimPageSize: z.number().int().positive().max(10000).default(1000),
  /**
   * The platform account's own limit, when it has one: one window in Redis shared by every directory (and
   * every worker) whose baseUrl names the same account, on top of each directory's `rateLimit`.
   */
  accountRateLimit: rateLimitSchema.optional(),
  /**
   * Status the platform uses for message-bearing failures ("not shown"). Any 4xx other than 401/403/429 is
   * already such a failure; set this when the platform sends them with a 5xx, so they are not retried.
   */
  messageFailureStatus: z.number().int().min(400).max(599).default(400),
  /** Path of the platform's SCIM interface below baseUrl ("not shown" beyond `GET /scim/v2/Users`). */
  scimPath: z.string().regex(/^\/[A-Za-z0-9/_-]*$/, "expected a path such as /scim/v2").default("/scim/v2"),
});

const attributeMappingSchema = strictObject({
  /** SCIM attribute path on the User, e.g. `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department` or `title`. */
  scim: z.string().min(1),
  /** Platform user-attribute name. */
  name: z.string().min(1),
  type: attributeTypeSchema,
  description: z.string().optional(),
  displayName: z.string().optional(),
});

const embedSchema = strictObject({
  /** "lowercase, 5 to 36 characters, starts with a letter, ends with a letter or digit, only `a-z`, `0-9`, `-`" */
  tenantName: z
    .string()
    .regex(/^[a-z][a-z0-9-]{3,34}[a-z0-9]$/, "expected 5–36 characters of a-z, 0-9 and '-', starting with a letter and ending with a letter or digit"),
  /** SCIM attribute whose value becomes the platform externalId (trimmed and lower-cased). */
  externalIdAttribute: z.string().default("userName"),
  attributeMapping: z.array(attributeMappingSchema).default([]),
  /** IdP group displayName → embed-tenant group name. Unmapped groups keep their displayName. */
  groupNameMapping: z.record(z.string(), z.string()).default({}),
  /** Only IdP groups whose displayName matches this regular expression are synced (default: all). */
  groupFilter: z.string().optional(),
  /** Account-wide limit of external users ("10,000 (raisable through support)"). */
  externalUserLimit: z.number().int().positive().default(10000),
});

const workforceSchema = strictObject({
  /** What an IdP DELETE /Users does on the platform: deactivate (default, reversible) or delete. */
  onUserDelete: z.enum(["deactivate", "delete"]).default("deactivate"),
});

const safetySchema = strictObject({
  /**
   * A resync whose plan would deprovision more than `count` platform users and groups, or more than
   * `percent` % of those the directory manages there, creates and updates, then waits for an operator
   * to confirm or cancel the deprovisions (state `awaiting-confirmation`).
   */
  maxDeprovisionPerResync: strictObject({
    count: z.number().int().nonnegative().default(500),
    percent: z.number().min(0).max(100).default(20),
  }).prefault({}),
  /**
   * The deprovision brake: deprovisions pushed by the IdP (active=false, DELETE, removal from scope) are
   * counted in a sliding window of `windowSeconds`; past `max`, or past `percent` % of the users and groups
   * the directory manages (when that is at least 10), further ones are held before the platform for an
   * operator. `max` and `percent` default to `maxDeprovisionPerResync`'s.
   */
  deprovisionBrake: strictObject({
    windowSeconds: z.number().int().positive().default(3600),
    max: z.number().int().nonnegative().optional(),
    percent: z.number().min(0).max(100).optional(),
  }).prefault({}),
});

export const directorySchema = strictObject({
    id: z.string().regex(DIRECTORY_ID, "expected lower-case letters, digits and '-' (1–63 characters, starting with a letter or digit)"),
    displayName: z.string().optional(),
    /**
     * SHA-256 hashes of the directory's SCIM tokens. At least one for a config-file directory; a directory
     * created at runtime has none here (its tokens live in Redis, made by the admin API).
     */
    tokenHashes: z.array(sha256Hex).default([]),
    target: z.enum(["workforce", "embed"]),
    platform: platformSchema,
    embed: embedSchema.optional(),
    workforce: workforceSchema.default({ onUserDelete: "deactivate" }),
    rateLimit: rateLimitSchema.default({ max: 50, durationMs: 1000 }),
    /**
     * Reconciles of this directory admitted into its queue shard at once across all workers (src/sync/admission/admission-store.ts).
     * The platform publishes no concurrency or rate rule ("Rate limits: not shown"), so calls per second are
     * the `rateLimit`'s to bound; this bounds calls in flight. 16, the same as `sync.shardConcurrency`: each
     * reconcile spends its platform call's latency plus its Redis bookkeeping, so at 20 ms of latency 8 in
     * flight synced ~200 users/s, fewer than an IdP pushes (300/s), and the lag after each 201 grew through a push.
     */
    concurrency: z.number().int().positive().default(16),
    /** Cron expression for a scheduled full resync (optional). */
    resyncSchedule: z.string().optional(),
    /**
     * Uniqueness rules beyond RFC 7643's. userName is always unique (case-insensitively); externalId has
     * no uniqueness in the RFC (§3.1), and a Group's displayName none (§4.2), so repeats are accepted.
     */
    uniqueness: strictObject({
      /** Refuse (409 uniqueness) a user or group whose externalId another user or group of the directory has. */
      externalId: z.boolean().default(false),
    }).prefault({}),
    /** Safeguards of operator actions (resync). */
    safety: safetySchema.prefault({}),
    /**
     * Strict SCIM: refuse what the lenient default accepts and reports (attributes the directory does not
     * declare, member ids that do not exist), as draft-zollner-scim-interop-profile asks, so a mapping
     * mistake shows at the first create instead of the hundredth update.
     */
    strict: z.boolean().default(false),
    /**
     * The directory's SCIM request log (src/scim/request-log/): every SCIM request with its answer, bodies
     * redacted and capped, kept by age and by size (oldest trimmed first).
     */
    requestLog: strictObject({
      enabled: z.boolean().default(true),
      /** Entries older than this are trimmed. */
      maxAgeDays: z.number().positive().max(365).default(30),
      /** The log's size in Redis, bodies included; past it the oldest entries are trimmed. */
      maxMegabytes: z.number().positive().max(10240).default(50),
      /** Each of a request's and a response's body is kept up to this many bytes (the rest is cut). */
      maxBodyBytes: z.number().int().min(0).max(65536).default(4096),
    }).prefault({}),
    /** This directory's own share of a server process, overriding the `scim.*` keys of the same names. */
    scim: strictObject({
      maxConcurrentRequests: z.number().int().positive().optional(),
      maxConcurrentScans: z.number().int().positive().optional(),
      maxQueuedScans: z.number().int().nonnegative().optional(),
    }).optional(),
    /** User schema extensions the directory declares (src/config/extensions.ts): their attributes are stored, patched, filtered and advertised. */
    extensions: extensionsSchema,
  })
  .superRefine((d, ctx) => {
    if (d.target === "embed" && !d.embed) {
      ctx.addIssue({ code: "custom", path: ["embed"], message: "required when target is \"embed\" (at least { \"tenantName\": \"...\" })" });
    }
    d.embed?.attributeMapping.forEach((m, i) => {
      const urn = undeclaredExtensionOf(m.scim, d.extensions);
      if (urn) ctx.addIssue({ code: "custom", path: ["embed", "attributeMapping", i, "scim"], message: `names extension ${urn}, which this directory does not declare: add it to the directory's "extensions" (or fix the path)` });
    });
  });
