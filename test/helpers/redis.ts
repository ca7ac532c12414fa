/**
 * Test isolation on the shared Redis: every suite gets its own key prefix (`test-<uuid>`) and deletes only
 * keys under it, so tests can run while a demo uses the same Redis.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

/** The Redis every test talks to. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A fresh prefix for one suite or test. */
export function testPrefix(): string {
  return `test-${randomUUID()}`;
}

/** Deletes every key that starts with `prefix` (SCAN, never KEYS) — covers `{prefix}` and `{prefix:q<n>}` BullMQ keys too. */
export async function cleanPrefix(redis: Redis, prefix: string): Promise<void> {
  for (const pattern of [`${prefix}*`, `{${prefix}}*`, `{${prefix}:*`]) {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== "0");
  }
}

/** `cleanPrefix` on a connection of its own (for suites that hold no connection of their own). */
export async function cleanPrefixAt(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    await cleanPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}
