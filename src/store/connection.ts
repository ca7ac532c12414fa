/**
 * Redis connections. The SCIM server's connection fails fast when Redis is unreachable (no offline
 * queue: a request gets 503 + Retry-After instead of hanging); BullMQ connections need
 * `maxRetriesPerRequest: null` and keep their offline queue so workers ride out a Redis restart.
 */
import { Redis, type RedisOptions } from "ioredis";

/** Options shared by every connection the bridge opens. */
function baseOptions(url: string, commandTimeoutMs?: number, name = "scim-bridge"): RedisOptions {
  return {
    lazyConnect: false,
    connectionName: name,
    commandTimeout: commandTimeoutMs,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    // a database index in the URL (redis://host:6379/3) is honoured by ioredis's URL parser
    ...(url.startsWith("rediss://") ? { tls: {} } : {}),
  };
}

/** Connection for request-serving code: commands fail at once while Redis is down. */
export function createStoreConnection(url: string, commandTimeoutMs = 5000): Redis {
  return new Redis(url, { ...baseOptions(url, commandTimeoutMs), enableOfflineQueue: false, maxRetriesPerRequest: 1 });
}

/**
 * Connection for BullMQ queues and workers (BullMQ requires maxRetriesPerRequest: null). `name` is its
 * CLIENT SETNAME (copies made with duplicate() keep it; BullMQ renames its Workers' blocking connections).
 */
export function createQueueConnection(url: string, name?: string): Redis {
  return new Redis(url, { ...baseOptions(url, undefined, name), maxRetriesPerRequest: null, enableOfflineQueue: true });
}

/** Resolves once the connection is ready, or rejects after `timeoutMs`. */
export function waitReady(redis: Redis, timeoutMs = 5000): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => { cleanup(); resolve(); };
    const cleanup = () => { clearTimeout(timer); redis.off("ready", onReady); };
    redis.on("ready", onReady);
  });
}
