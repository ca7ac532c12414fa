/**
 * A full dump of the Redis keys under a prefix, for "the store is unchanged" assertions: every key that
 * starts with the prefix (also `{prefix}…` BullMQ keys), read according to its TYPE — strings, hashes,
 * sets, sorted sets (with scores), lists and streams (entry ids and fields) — and whether it has a TTL.
 * Nothing is skipped unless the caller names it in `ignore`, except each directory's SCIM request log
 * (`<kp>:{<dir>}:rl`, `…:rl:ids`): it records every request, the refused ones too, by design — it is what
 * happened, not the bridge's state (test/scim/request-log.test.ts covers it).
 */
import type { RedisConnection } from "../../src/store";
import { scanKeys } from "./redis";

export type RedisSnapshot = Record<string, { type: string; ttl: boolean; value: unknown }>;

const scanAll = scanKeys;

async function read(redis: RedisConnection, key: string, type: string): Promise<unknown> {
  switch (type) {
    case "string": return redis.get(key);
    case "hash": return Object.fromEntries(Object.entries(await redis.hgetall(key)).sort(([a], [b]) => a.localeCompare(b)));
    case "set": return (await redis.smembers(key)).sort();
    case "zset": return redis.zrange(key, "0", "-1", "WITHSCORES");
    case "list": return redis.lrange(key, 0, -1);
    case "stream": return redis.xrange(key, "-", "+");
    default: throw new Error(`snapshot: key ${key} has type ${type}, which this helper cannot read`);
  }
}

/** Every key under `prefix` with its type and value; keys matching `ignore` are left out. */
const REQUEST_LOG = /:\{[^}]+\}:rl(:ids)?$/;
/** The running workers' advertisement of their key variables: a heartbeat every 10 s, no request's doing. */
const WORKER_HEARTBEAT = /:key-vars$/;

export async function snapshotRedis(redis: RedisConnection, prefix: string, ignore?: RegExp): Promise<RedisSnapshot> {
  const keys = [...new Set([...(await scanAll(redis, `${prefix}*`)), ...(await scanAll(redis, `{${prefix}}*`))])]
    .filter((k) => !REQUEST_LOG.test(k) && !WORKER_HEARTBEAT.test(k) && (!ignore || !ignore.test(k)))
    .sort();
  // every key's commands are sent at once (one connection: they travel pipelined, a few round trips in all)
  const types = await Promise.all(keys.map((key) => redis.type(key)));
  const entries = await Promise.all(keys.map(async (key, i) => {
    const type = types[i];
    if (type === "none") return undefined; // expired between SCAN and TYPE
    const [pttl, value] = await Promise.all([redis.pttl(key), read(redis, key, type)]);
    if (pttl === -2) return undefined; // expired between TYPE and the read
    return [key, { type, ttl: pttl >= 0, value }] as const;
  }));
  const snap: RedisSnapshot = {};
  for (const e of entries) if (e) snap[e[0]] = e[1];
  return snap;
}

/**
 * Runs `action` and asserts that nothing under `prefix` changed (same keys, types, values and TTL
 * presence). Returns what `action` returned.
 */
export async function expectUnchanged<T>(redis: RedisConnection, prefix: string, action: () => Promise<T>, ignore?: RegExp): Promise<T> {
  const before = await snapshotRedis(redis, prefix, ignore);
  // when each volatile key expires on its own (e.g. write-settlement replies, 120 s): a key whose TTL ran
  // out during the action was removed by Redis, not by the request
  const expiresAt = new Map<string, number>();
  const volatile = Object.keys(before).filter((key) => before[key].ttl);
  const ttls = await Promise.all(volatile.map((key) => redis.pttl(key)));
  volatile.forEach((key, i) => expiresAt.set(key, Date.now() + Math.max(0, ttls[i])));
  const result = await action();
  const after = await snapshotRedis(redis, prefix, ignore);
  const now = Date.now();
  for (const key of Object.keys(before)) if (!(key in after) && (expiresAt.get(key) ?? Infinity) <= now + 50) delete before[key];
  expect(after).toEqual(before);
  return result;
}
