/**
 * The bridge's configuration, as one zod schema. Every key has a default where a sensible one exists;
 * `load.ts` merges config/default.json, config/<NODE_ENV>.json, the file at SCIM_BRIDGE_CONFIG and
 * environment variables, then parses the result here. A bad value stops the process with a message
 * that names the key (see `formatConfigError`).
 *
 * Values the platform contract marks "not shown" (platform SCIM write paths, status codes of
 * message-bearing failures, rate limits, page sizes) are config values here, with defaults, and are
 * called out in the README's configuration reference.
 */
import fs from "node:fs";
import { z } from "zod";
import { DIRECTORY_ID, attributeTypeSchema, directorySchema, sha256Hex } from "./directory-schema";
import { hostPort, isTrustProxyList } from "./network-values";
import { strictObject } from "./strict-object";
import { tokenHashCollisions } from "./token-collisions";

export { DIRECTORY_ID, attributeTypeSchema, directorySchema };

export const configSchema = strictObject({
    server: strictObject({
        host: z.string().default("0.0.0.0"),
        port: z.number().int().min(0).max(65535).default(8080),
        /** Absolute base URL the IdPs use; `meta.location` and `Location` are built from it. */
        publicBaseUrl: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, "")).optional(),
        /** Largest accepted request body in bytes (413 above it). */
        bodyLimitBytes: z.number().int().positive().default(1048576),
        /**
         * Which proxies in front of the bridge to believe for the client address (Express `trust proxy`),
         * used by the failed-authentication limits: `false`/`0` (none: the socket's address), the number of
         * proxies (1 behind one reverse proxy, 2 behind a load balancer and a proxy), or their addresses and
         * subnets (`"loopback, 10.0.0.0/8"`). `true` is refused: it believes every X-Forwarded-For entry.
         */
        trustProxy: z
          .union([z.boolean(), z.number().int().min(0).max(32), z.string().min(1), z.array(z.string().min(1)).min(1)])
          .refine((v) => v !== true, {
            message: "true would believe every X-Forwarded-For entry, so any client could choose its own address (and dodge or cause failed-authentication blocks); "
              + "set the number of proxies in front of the bridge (1 behind one reverse proxy, 2 behind a load balancer and a proxy) or their addresses, e.g. \"loopback, 10.0.0.0/8\"",
          })
          .refine(isTrustProxyList, { message: "expected IP addresses, subnets (10.0.0.0/8) or the names loopback, linklocal, uniquelocal, separated by commas" })
          .default(false),
        /** Seconds sent in Retry-After when Redis is unreachable (503). */
        retryAfterSeconds: z.number().int().positive().default(5),
      })
      .prefault({}),
    redis: strictObject({
        url: z.string().regex(/^rediss?:\/\//, "expected a redis:// or rediss:// URL").default("redis://127.0.0.1:6379"),
        /** Prefix of every key the bridge writes; BullMQ queues use `{<prefix>}` so a queue stays on one cluster slot. */
        keyPrefix: z.string().regex(/^[A-Za-z0-9._-]+$/).default("scimbridge"),
        commandTimeoutMs: z.number().int().positive().default(5000),
        /**
         * How long a SCIM write whose Redis answer was lost (command timeout, dropped connection) waits for
         * Redis to answer again, so the response says whether it committed (its real result) or not (503).
         * 0 answers 503 at once with the outcome unknown.
         */
        writeSettleMs: z.number().int().min(0).max(60000).default(10000),
        /**
         * A SCIM write is answered only once this many replicas hold it (Redis WAIT, store/replica-ack.ts), so
         * a failover cannot lose a write the IdP was told succeeded. 0 (the default) answers once the master has
         * it. Set it to the number of replicas each master has (1 with a replica per master) on Redis Cluster
         * or Sentinel. When they do not acknowledge within `timeoutMs` (also while a master has fewer replicas:
         * after a failover until the old master rejoins as a replica) the write is answered 503 + Retry-After.
         */
        replicaAck: strictObject({
            /** Replicas that must hold a write (env REDIS_REPLICA_ACK). */
            replicas: z.number().int().min(0).max(16).default(0),
            /** How long a write waits for them (env REDIS_REPLICA_ACK_TIMEOUT_MS). */
            timeoutMs: z.number().int().positive().max(60000).default(2000),
          })
          .prefault({}),
        /**
         * Redis Cluster: seed nodes as `host:port` (env REDIS_CLUSTER_NODES, comma-separated). Non-empty turns
         * cluster mode on; `url` then gives only the scheme (rediss:// = TLS), user name and password.
         */
        clusterNodes: z.array(hostPort).default([]),
        /**
         * Redis Sentinel: sentinels as `host:port` (env REDIS_SENTINELS). Non-empty turns Sentinel mode on; the
         * master is found by `sentinelMaster`; `url` gives the scheme, user name, password and database index.
         */
        sentinels: z.array(hostPort).default([]),
        /** Name of the master the sentinels monitor (env REDIS_SENTINEL_MASTER). */
        sentinelMaster: z.string().min(1).default("mymaster"),
        /**
         * Run although Redis's `maxmemory-policy` is not `noeviction` (env REDIS_ALLOW_EVICTION_POLICY): a full
         * Redis may then drop desired state, outbox entries or queued jobs. Refused at start otherwise.
         */
        allowEvictionPolicy: z.boolean().default(false),
        tls: strictObject({
            /** PEM file of the CA that signed the Redis server's certificate (env REDIS_TLS_CA_FILE); default: Node's CAs. */
            caFile: z.string().min(1).refine((f) => fs.existsSync(f), { message: "file not found: give the path of the PEM file of the CA that signed the Redis server's certificate" }).optional(),
            /** Name the server's certificate must carry (env REDIS_TLS_SERVERNAME); default: the host connected to. */
            servername: z.string().min(1).optional(),
          })
          .prefault({}),
      })
      .superRefine((r, ctx) => {
        if (r.clusterNodes.length && r.sentinels.length) {
          ctx.addIssue({ code: "custom", path: ["sentinels"], message: "set either clusterNodes (REDIS_CLUSTER_NODES) or sentinels (REDIS_SENTINELS), not both" });
        }
        const db = /^rediss?:\/\/[^/]*(?:\/(.*))?$/.exec(r.url)?.[1] ?? "";
        if (db !== "" && !/^(0|[1-9]\d{0,4})$/.test(db)) {
          ctx.addIssue({ code: "custom", path: ["url"], message: `the path of redis.url (REDIS_URL) is the database index, a number such as /0 or /3; "/${db}" is not one` });
        } else if (db !== "" && db !== "0" && r.clusterNodes.length) {
          ctx.addIssue({ code: "custom", path: ["url"], message: `Redis Cluster has only database 0; remove "/${db}" from redis.url (REDIS_URL)` });
        }
        if ((r.tls.caFile || r.tls.servername) && !r.url.startsWith("rediss://")) {
          ctx.addIssue({ code: "custom", path: ["tls"], message: "TLS options are set but redis.url (REDIS_URL) is redis://, which does not use TLS: write it rediss://" });
        }
      })
      .prefault({}),
    scim: strictObject({
        /** Largest `count` honoured (ServiceProviderConfig `filter.maxResults`). */
        maxResults: z.number().int().positive().max(10000).default(200),
        /** Page size when the request gives no `count`. */
        defaultCount: z.number().int().positive().default(100),
        /** Largest accepted filter expression, in characters. */
        maxFilterLength: z.number().int().positive().default(4096),
        /** Most comparisons (`attr op value`, `attr pr`) one filter may hold (400 invalidFilter beyond). */
        maxFilterTerms: z.number().int().positive().default(64),
        /**
         * Most records one list or search request may read when no index answers its filter (a group read
         * with its members counts each member); a directory holding more answers such filters 400 tooMany.
         */
        maxScanRecords: z.number().int().positive().default(100000),
        /**
         * Seconds an RFC 9865 cursor stays valid between two pages (ServiceProviderConfig
         * `pagination.cursorTimeout`); an older one answers 400 expiredCursor.
         */
        cursorTimeoutSeconds: z.number().int().positive().max(86400).default(3600),
        /**
         * Members after which a cursor page of groups ends (fewer groups than `count`, `itemsPerPage` says how
         * many). Index pages always honour `count`: Okta's import advances `startIndex` by what it asked for.
         */
        maxPageMembers: z.number().int().positive().default(10000),
        /**
         * Heavy requests of one directory that may run at once in one server process — scans (filters no
         * index answers) and reads of a large group's members; more wait their turn.
         */
        maxConcurrentScans: z.number().int().positive().default(1),
        /** Heavy requests of one directory that may wait for a turn in one server process; more get 429 + Retry-After. */
        maxQueuedScans: z.number().int().nonnegative().default(4),
        /** SCIM requests of one directory in progress at once in one server process; more get 429 + Retry-After. */
        maxConcurrentRequests: z.number().int().positive().default(64),
        /** Seconds sent in Retry-After with a 429 of the limits above. */
        retryAfterSeconds: z.number().int().positive().max(3600).default(5),
        /** Most operations one PATCH may hold (400 tooMany beyond); Okta and Entra send a few, Okta ≤ 256 members in one. */
        maxPatchOperations: z.number().int().positive().default(1000),
        /** Longest userName, displayName and externalId accepted, in characters (400 invalidValue beyond). */
        maxIdentifierLength: z.number().int().positive().max(65536).default(1024),
        /**
         * Seconds an identical retry of a POST whose answer was lost (Redis stalled past redis.writeSettleMs,
         * answered 503) is answered with what that POST created instead of creating it again; 0: off.
         */
        lostCreateSeconds: z.number().int().nonnegative().max(86400).default(300),
        /** Largest member list a single group may hold. */
        maxGroupMembers: z.number().int().positive().default(200000),
        /**
         * Size from which a group is large: it leaves the reverse index (which groups each user is in) for
         * good, so its member changes cost Redis less, and reading a user's groups checks it directly.
         */
        largeGroupMembers: z.number().int().positive().default(1000),
        /** Most large groups per directory (each adds one Redis lookup to every read of a user's groups). */
        largeGroupsPerDirectory: z.number().int().nonnegative().default(8),
      })
      .prefault({}),
    auth: strictObject({
        /** Failed authentications per client address allowed in `windowSeconds` before 429. */
        maxFailures: z.number().int().positive().default(20),
        windowSeconds: z.number().int().positive().default(60),
      })
      .prefault({}),
    admin: strictObject({
        /** SHA-256 hashes of admin tokens (never a SCIM token). Empty: the admin API answers 401 to everyone. */
        tokenHashes: z.array(sha256Hex).default([]),
      })
      .prefault({}),
    sync: strictObject({
        attempts: z.number().int().positive().default(10),
        backoffMs: z.number().int().positive().default(1000),
        /** Longest wait between two tries: bounds how long an item keeps waiting after the platform is back. */
        maxBackoffMs: z.number().int().positive().default(300000),
        /**
         * Items whose retries ran out on transient errors (5xx, timeouts, connection failures) are queued again
         * by themselves: after `reviveBaseMs`, then twice as long each time, up to `reviveMaxMs`; and at once
         * when the directory's platform calls succeed again after at least `outageGapMs` of failing calls.
         */
        reviveBaseMs: z.number().int().positive().default(60000),
        reviveMaxMs: z.number().int().positive().default(4 * 3600 * 1000),
        outageGapMs: z.number().int().positive().default(10000),
        /** How often a worker looks for items due to be queued again. */
        reviveTickMs: z.number().int().positive().default(5000),
        /** How often a worker re-verifies each directory's platform key (its health recovers without a restart). */
        keyCheckIntervalMs: z.number().int().positive().default(300000),
        sweepIntervalMs: z.number().int().positive().default(5000),
        /** Times a job may be handed on because its worker died before BullMQ fails it (then `failed` as a spent transient failure; the revival queues it again). */
        maxStalledCount: z.number().int().min(0).default(5),
        /** Lock of an active reconcile job, renewed by its worker; a job whose lock expires (worker gone) is stalled and handed to another worker. */
        lockDurationMs: z.number().int().positive().default(30000),
        /**
         * BullMQ queues (shards) every directory's jobs run on; a directory goes to one by a hash of its id.
         * Each worker process holds one Worker (one blocking connection) per shard, whatever the number of
         * directories. On Redis Cluster each shard is a slot of its own: at least the number of masters.
         * Changing it moves directories between shards; jobs left in a shard numbered above the new count
         * are not run (drain the sync before lowering it).
         */
        queueShards: z.number().int().min(1).max(64).default(4),
        /**
         * Jobs one worker process runs at once per shard (each directory is still held to its `concurrency`).
         * BullMQ fills a Worker's free places one job per round trip before it starts any of them, so a
         * burst of jobs waits for up to this many round trips before the first runs: a larger value adds
         * latency to a first sync without adding throughput (bench/scale shows both). A job that waits in
         * the shard instead waits in its directory's turn (its priority), which the Worker's places do not.
         */
        shardConcurrency: z.number().int().positive().default(16),
      })
      .prefault({}),
    metrics: strictObject({
        /**
         * Port of /metrics, /healthz and /readyz in a worker-only process (0: none; env METRICS_PORT). A server
         * serves them on its own port. When the port is taken (a second worker on one host), the worker listens
         * on a port the system picks and logs it, rather than failing to start.
         */
        workerPort: z.number().int().min(0).max(65535).default(9464),
        /**
         * SHA-256 hashes of tokens that may read /metrics with its directory ids. Empty: /metrics is open and
         * shows an opaque label per directory instead of its id.
         */
        tokenHashes: z.array(sha256Hex).default([]),
      })
      .prefault({}),
    oauth: strictObject({
        /** Lifetime of an access token from POST /oauth/token (RFC 6749 §4.4), in seconds. */
        accessTokenTtlSeconds: z.number().int().positive().max(86400).default(3600),
      })
      .prefault({}),
    activity: strictObject({
        /** Events kept per user or group (IdP writes, outcomes, platform calls, retries, pauses). */
        maxEvents: z.number().int().positive().max(10000).default(50),
        /** A trail with no new event for this many days is dropped (deleted resources' trails go too). */
        retentionDays: z.number().int().positive().default(30),
      })
      .prefault({}),
    shutdown: strictObject({
        /**
         * After SIGTERM/SIGINT a process stops taking requests and jobs and finishes the active ones; past
         * this it exits anyway (code 1). With Redis unreachable closing would wait on commands that cannot
         * run; a job cut short is run again by another worker once its lock expires. Keep it below the
         * orchestrator's grace period (`stop_grace_period: 60s` in docker-compose.yml) and above the longest
         * reconcile.
         */
        timeoutMs: z.number().int().positive().default(50000),
      })
      .prefault({}),
    registry: strictObject({
        /**
         * Every server and worker reloads the directories (runtime ones, disabled flags, credentials) this
         * often, as a safety net behind the change notifications they get at once through Redis pub/sub.
         */
        reloadIntervalMs: z.number().int().positive().default(1000),
      })
      .prefault({}),
    log: strictObject({
        level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
      })
      .prefault({}),
    directories: z.array(directorySchema).default([]),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.directories.forEach((d, i) => {
      if (seen.has(d.id)) ctx.addIssue({ code: "custom", path: ["directories", i, "id"], message: `duplicate directory id "${d.id}"` });
      if (d.tokenHashes.length === 0) ctx.addIssue({ code: "custom", path: ["directories", i, "tokenHashes"], message: "expected at least one token hash" });
      seen.add(d.id);
    });
    for (const { path, message } of tokenHashCollisions(c)) ctx.addIssue({ code: "custom", path, message });
  });

/** The parsed configuration. */
export type Config = z.output<typeof configSchema>;
/** One parsed directory. */
export type DirectoryConfig = z.output<typeof directorySchema>;
/** Raw input accepted by the schema (before defaults). */
export type ConfigInput = z.input<typeof configSchema>;
