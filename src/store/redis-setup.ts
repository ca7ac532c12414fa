/**
 * What the bridge needs of the Redis it is given, checked once a connection is ready (at start of every role
 * and by `config check --online`):
 *   - the database `redis.url` names exists. A `SELECT` of a missing one fails, and ioredis then goes on
 *     against database 0 (it reports the failure only as an `error` event): a typo in the index would mix
 *     this bridge's keys with whatever lives in database 0.
 *   - `maxmemory-policy` is `noeviction`. BullMQ: "it is important to configure the maxmemory-policy setting
 *     to noeviction, as this is the only setting that guarantees the correct behavior of the queues"
 *     (docs.bullmq.io, Going to production); any other policy lets a full Redis drop desired state, outbox
 *     entries or queued jobs without a word. `redis.allowEvictionPolicy` accepts another one knowingly.
 */
import { Cluster, type Redis } from "ioredis";
import { closeConnection, createQueueConnection, waitReady, type RedisConnection, type RedisSettings } from "./connection";

export interface RedisSetupOptions {
  /** `redis.url`: its path is the database index (single Redis and Sentinel). */
  url: string;
  /** `redis.allowEvictionPolicy`: accept a `maxmemory-policy` other than `noeviction`. */
  allowEvictionPolicy?: boolean;
}

export interface RedisSetupReport {
  /** Each names the key and the fix. */
  problems: string[];
  /** What was checked and found right, for `config check --online`. */
  verified: string[];
}

/** The database index of a redis:// URL (0 when it has none). */
export function databaseIndex(url: string): number {
  const path = new URL(url).pathname.replace(/^\//, "");
  return path === "" ? 0 : Number(path);
}

/** `maxmemory_policy` as INFO reports it (INFO is allowed where CONFIG GET is not, on managed offerings). */
async function evictionPolicy(node: Redis): Promise<string | undefined> {
  const info = await node.info("memory");
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
}

/** How many databases the server has, when it says (CONFIG may be disabled). */
async function databases(node: Redis): Promise<number | undefined> {
  try {
    const reply = (await node.config("GET", "databases")) as string[];
    return reply[1] === undefined ? undefined : Number(reply[1]);
  } catch {
    return undefined;
  }
}

/** Checks the connection's Redis (every master of a cluster) against what the bridge needs. */
export async function checkRedisSetup(redis: RedisConnection, options: RedisSetupOptions): Promise<RedisSetupReport> {
  const problems: string[] = [];
  const verified: string[] = [];
  const nodes = redis instanceof Cluster ? redis.nodes("master") : [redis];
  if (!(redis instanceof Cluster)) {
    const db = databaseIndex(options.url);
    try {
      // the index the connection already uses: selecting it again changes nothing when it exists
      await redis.select(db);
      verified.push(`Redis database ${db} exists`);
    } catch (err) {
      const count = await databases(redis);
      problems.push(`redis.url (REDIS_URL): database ${db} does not exist on this Redis (${(err as Error).message}${count ? `; it has databases 0–${count - 1}` : ""}); `
        + "without this check every key would be written to database 0. Fix: name an existing database (raise `databases` in redis.conf for more), or none for 0");
    }
  }
  const policies = await Promise.all(nodes.map(async (n) => ({ node: `${n.options.host}:${n.options.port}`, policy: await evictionPolicy(n) })));
  const evicting = policies.filter((p) => p.policy !== undefined && p.policy !== "noeviction");
  if (!evicting.length) {
    verified.push("Redis maxmemory-policy is noeviction");
  } else if (options.allowEvictionPolicy) {
    verified.push(`Redis maxmemory-policy is ${evicting.map((p) => p.policy).join(", ")}, accepted by redis.allowEvictionPolicy: a full Redis may drop keys`);
  } else {
    const which = evicting.map((p) => `${p.policy}${nodes.length > 1 ? ` on ${p.node}` : ""}`).join(", ");
    problems.push(`Redis maxmemory-policy is ${which}: when Redis fills up it would evict users, memberships, outbox entries or queued jobs without a word. `
      + "Fix: set maxmemory-policy noeviction on the server (redis.conf, or the parameter group of a managed Redis); "
      + "or set redis.allowEvictionPolicy (REDIS_ALLOW_EVICTION_POLICY=true) to run anyway");
  }
  return { problems, verified };
}

/** Raised at start when the Redis set-up is one the bridge refuses; the message names the key and the fix. */
export class RedisSetupError extends Error {
  constructor(problems: string[]) {
    super(`the Redis set-up is refused:\n${problems.map((p) => `- ${p}`).join("\n")}`);
    this.name = this.constructor.name;
  }
}

/**
 * Checks the Redis of these settings on a connection of its own, closed after (a queue connection: on a
 * cluster it reaches each master on demand, where a store connection would refuse to wait for one).
 */
export async function inspectRedisSetup(settings: RedisSettings & RedisSetupOptions): Promise<RedisSetupReport> {
  const redis = createQueueConnection(settings, "scim-bridge-setup-check");
  redis.on("error", () => undefined); // a missing database is reported by the check itself
  try {
    await waitReady(redis, 10000);
    return await checkRedisSetup(redis, settings);
  } finally {
    await closeConnection(redis);
  }
}

/** At start: throws RedisSetupError when the check finds a problem. */
export async function assertRedisSetup(settings: RedisSettings & RedisSetupOptions): Promise<void> {
  const { problems } = await inspectRedisSetup(settings);
  if (problems.length) throw new RedisSetupError(problems);
}
