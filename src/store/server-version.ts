/**
 * The Redis server's version, read once by a worker at start. BullMQ reads it itself with INFO on every
 * connection it makes (each Worker's blocking copy included) to pick its blocking timeouts; on Redis
 * Cluster a command without a key goes to a random master, so each such INFO opened a socket to a master
 * that the copy never used again (one idle connection per queue shard). A worker that has read the
 * version here tells BullMQ to skip its own check when the server is new enough for BullMQ's defaults.
 */
import { isRedisVersionLowerThan } from "bullmq";
import type { RedisConnection } from "./connection";

/** The version from which BullMQ uses its full capabilities ("canBlockFor1Ms" needs 7.0.8). */
export const BULLMQ_FULL_CAPABILITY_VERSION = "7.0.8";

/** `redis_version` of the server (on a cluster: of one master), e.g. "7.0.15". */
export async function serverVersion(redis: RedisConnection): Promise<string> {
  const info = await redis.info("server");
  const m = /^redis_version:(\S+)/m.exec(info);
  if (!m) throw new Error("INFO server did not show redis_version");
  return m[1];
}

/**
 * True when version `a` ≥ `b`, compared as BullMQ compares them for its own check (its exported
 * `isRedisVersionLowerThan`), so skipping that check never decides otherwise than the check would.
 */
export function versionAtLeast(a: string, b: string): boolean {
  return !isRedisVersionLowerThan(a, b, "redis");
}
