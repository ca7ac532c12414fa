/**
 * The one place the bridge opens Redis connections: single Redis (`redis.url`), Redis Cluster
 * (`redis.clusterNodes`, through ioredis `Cluster`) or Sentinel (`redis.sentinels` + `redis.sentinelMaster`),
 * each with or without TLS (`rediss://`, `redis.tls.caFile`, `redis.tls.servername`).
 *
 * Two roles:
 *   store  request-serving code: no offline queue and one retry, so while Redis is unreachable a SCIM
 *          request gets 503 + Retry-After at once instead of hanging; no auto-pipelining: its socket writes
 *          are coalesced per loop turn instead (roleOptions, below);
 *   queue  BullMQ queues and workers, the dispatcher, the operator surface: BullMQ requires
 *          `maxRetriesPerRequest: null` ("connection.maxRetriesPerRequest must be null"), and the offline
 *          queue lets workers ride out a Redis restart or a failover.
 * `waitReady` resolves once a connection answers, or rejects with what failed (see redis-errors.ts).
 */
import fs from "node:fs";
import type { ConnectionOptions as TlsOptions } from "node:tls";
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import { describeRedisError, isFatalRedisError } from "./redis-errors";
import { slotOf } from "./key-slot";
import { BridgeCluster } from "./bridge-cluster";
import { coalesceWrites } from "./write-coalescing";

/** A connection of either kind; every store accepts both. */
export type RedisConnection = Redis | Cluster;

/** What the factory needs of `config.redis` (only `url` is required, for tests and benches). */
export interface RedisSettings {
  url: string;
  commandTimeoutMs?: number;
  clusterNodes?: string[];
  sentinels?: string[];
  sentinelMaster?: string;
  tls?: { caFile?: string; servername?: string };
}

export type ConnectionRole = "store" | "queue";

/** `host:port` → ioredis address (brackets of an IPv6 literal stripped). */
function address(hp: string): { host: string; port: number } {
  const i = hp.lastIndexOf(":");
  return { host: hp.slice(0, i).replace(/^\[(.*)\]$/, "$1"), port: Number(hp.slice(i + 1)) };
}

function tlsOf(s: RedisSettings): TlsOptions | undefined {
  if (!s.url.startsWith("rediss://")) return undefined;
  return {
    ...(s.tls?.caFile ? { ca: fs.readFileSync(s.tls.caFile) } : {}),
    ...(s.tls?.servername ? { servername: s.tls.servername } : {}),
  };
}

/**
 * The store connection coalesces its socket writes per loop turn (write-coalescing.ts): the commands that
 * concurrent SCIM requests send in one turn leave in one socket write, and each reply is handled as soon
 * as it arrives. Auto-pipelining is off (`enableAutoPipelining: false`): ioredis keeps one auto-pipelined
 * batch in flight per connection (commands sent meanwhile wait for the whole batch to be answered) and
 * answers a batch's commands only once its last reply is in, so every request would wait for its whole
 * batch and the one before it; coalescing keeps the few socket writes without that wait (bench/scim
 * measures it). Queue connections are BullMQ's and are left as they are.
 */
function roleOptions(role: ConnectionRole, commandTimeoutMs: number): RedisOptions {
  return role === "store"
    ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs, enableAutoPipelining: false }
    : { enableOfflineQueue: true, maxRetriesPerRequest: null };
}

/** Where a connection of these settings goes, for messages: `host:port`, `cluster a:1,b:2`, `sentinel master m`. */
export function redisTarget(s: RedisSettings): string {
  if (s.clusterNodes?.length) return `Redis Cluster (seed nodes ${s.clusterNodes.join(", ")})`;
  if (s.sentinels?.length) return `Redis master "${s.sentinelMaster ?? "mymaster"}" of sentinels ${s.sentinels.join(", ")}`;
  const u = new URL(s.url);
  return `Redis at ${u.protocol}//${u.host}`;
}

/**
 * The connection that holds `key`: on Redis Cluster, the one to the master of its slot (for a command that
 * has no key of its own, such as SCAN or WAIT, which ioredis would send to a random master); the connection
 * itself on single Redis and Sentinel. Undefined when the cluster knows no master for that slot yet.
 */
export function nodeFor(redis: RedisConnection, key: string): Redis | undefined {
  if (!(redis instanceof Cluster)) return redis;
  const master = redis.slots[slotOf(key)]?.[0];
  return redis.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === master);
}

const targets = new WeakMap<RedisConnection, { target: string; tls: boolean }>();

/** Opens a connection of `role` to the Redis the settings name (cluster, sentinel or single). */
export function createRedisConnection(settings: RedisSettings | string, role: ConnectionRole, name = "scim-bridge"): RedisConnection {
  const s: RedisSettings = typeof settings === "string" ? { url: settings } : settings;
  const u = new URL(s.url);
  const tls = tlsOf(s);
  const base: RedisOptions = {
    connectionName: name,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(tls ? { tls } : {}),
    ...roleOptions(role, s.commandTimeoutMs ?? 5000),
  };
  let conn: RedisConnection;
  if (s.clusterNodes?.length) {
    const options: ClusterOptions = {
      redisOptions: base,
      enableOfflineQueue: base.enableOfflineQueue,
      // No auto-pipelining (roleOptions). On a cluster it would also build a Pipeline per node and tick, and
      // hash every command's key three times (to batch it, to check the pipeline, to route the pipeline).
      enableAutoPipelining: false,
      clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
      // during a failover the slot's master is gone until a replica is promoted: retry the command meanwhile
      retryDelayOnClusterDown: 200,
      retryDelayOnFailover: 200,
      retryDelayOnTryAgain: 200,
    };
    conn = new BridgeCluster(s.clusterNodes.map(address), options);
  } else if (s.sentinels?.length) {
    const db = Number(u.pathname.replace(/^\//, "") || 0);
    conn = new Redis({
      ...base, sentinels: s.sentinels.map(address), name: s.sentinelMaster ?? "mymaster", db,
      // with TLS the sentinels are reached over TLS too (managed offerings serve both on TLS)
      ...(tls ? { enableTLSForSentinelMode: true, sentinelTLS: tls } : {}),
      sentinelRetryStrategy: (times) => Math.min(times * 200, 2000),
    });
  } else {
    // a database index in the URL (redis://host:6379/3) is honoured by ioredis's URL parser
    conn = new Redis(s.url, base);
  }
  // one socket write per loop turn (see roleOptions)
  if (role === "store") coalesceWrites(conn);
  targets.set(conn, { target: redisTarget(s), tls: Boolean(tls) });
  return conn;
}

/** Connection for request-serving code: commands fail at once while Redis is down. */
export function createStoreConnection(settings: RedisSettings | string, commandTimeoutMs?: number): RedisConnection {
  const s: RedisSettings = typeof settings === "string" ? { url: settings } : settings;
  return createRedisConnection(commandTimeoutMs === undefined ? s : { ...s, commandTimeoutMs }, "store");
}

/**
 * Connection for BullMQ queues and workers (BullMQ requires maxRetriesPerRequest: null). `name` is its
 * CLIENT SETNAME (BullMQ renames its Workers' blocking connections).
 */
export function createQueueConnection(settings: RedisSettings | string, name?: string): RedisConnection {
  return createRedisConnection(settings, "queue", name);
}

/**
 * Closes a connection: QUIT when it is up (the replies of commands sent before arrive first), at once when
 * it is not (a QUIT would wait in the offline queue of a connection that rides out restarts until Redis is back).
 */
export async function closeConnection(redis: RedisConnection): Promise<void> {
  if (redis.status === "ready") await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

/** Raised when Redis cannot be reached (at start; no master for a slot); the message names what failed. */
export class RedisUnavailableError extends Error {
  constructor(message: string, cause?: Error) {
    super(message, { cause });
    this.name = this.constructor.name;
  }
}

/**
 * Resolves once the connection is ready. Rejects at once on a failure that retrying cannot fix (a TLS
 * certificate or host name the client refuses, a server that does not speak TLS, wrong credentials), or
 * after `timeoutMs` with the last error seen — never a bare "did not answer".
 */
export function waitReady(redis: RedisConnection, timeoutMs = 5000): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  const where = targets.get(redis) ?? { target: "Redis", tls: false };
  return new Promise((resolve, reject) => {
    let last: Error | undefined;
    let closes = 0;
    const fail = (why: string, err?: Error) => {
      cleanup();
      reject(new RedisUnavailableError(`${where.target}: ${why}`, err));
    };
    const timer = setTimeout(() => {
      if (last) return fail(`no connection within ${timeoutMs} ms; last error: ${describeRedisError(last, where.tls)}`, last);
      if (closes) return fail(`the server closed the connection ${closes} time(s) before answering within ${timeoutMs} ms`
        + (where.tls ? "" : " (a port that expects TLS does this to a plain redis:// client: use rediss://)"));
      fail(where.tls
        ? `no TLS handshake within ${timeoutMs} ms: a server that does not speak TLS on this port leaves it unanswered (use redis:// or the server's TLS port); else is it running and reachable from here?`
        : `did not answer within ${timeoutMs} ms (is it running and reachable from here?)`);
    }, timeoutMs);
    const onReady = () => { cleanup(); resolve(); };
    const onError = (err: Error) => {
      last = err;
      if (isFatalRedisError(err)) fail(describeRedisError(err, where.tls), err);
    };
    const onClose = () => { closes++; };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("error", onError);
      redis.off("close", onClose);
      redis.off("node error", onError);
    };
    redis.on("ready", onReady);
    redis.on("error", onError);
    redis.on("close", onClose);
    // a cluster reports each node's failure as "node error" and only then its own "error"
    if (redis instanceof Cluster) redis.on("node error", onError);
  });
}
