/**
 * The Redis server's version, read once by a worker at start. BullMQ reads it itself with INFO on every
 * connection it makes (each Worker's blocking copy included) to pick its blocking timeouts; on Redis
 * Cluster a command without a key goes to a random master, so each such INFO opened a socket to a master
 * that the copy never used again (one idle connection per queue shard). A worker that has read the
 * version here tells BullMQ to skip its own check when the server is new enough for BullMQ's defaults.
 */
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

/** True when version `a` ≥ `b` (dotted numbers; a missing part counts as 0). */
export function versionAtLeast(a: string, b: string): boolean {
  const pa = a.split(".").map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split(".").map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}
