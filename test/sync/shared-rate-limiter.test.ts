/**
 * The one throttle of platform calls: the shared Redis limiter (src/sync/shared-rate-limiter.ts), against
 * real Redis. At most `max` calls per window across every holder of the key, and a call's window starts
 * when it completed, not when it was sent.
 */
import { Redis } from "ioredis";
import { SharedRateLimiter } from "../../src/sync/shared-rate-limiter";
import { TEST_REDIS_URL, cleanPrefix, testPrefix } from "../helpers/redis";

const prefix = testPrefix();
let redis: Redis;
beforeAll(() => (redis = new Redis(TEST_REDIS_URL)));
afterAll(async () => {
  await cleanPrefix(redis, prefix);
  redis.disconnect();
});

it("should let max calls through and hold the next until the window slides, across limiter instances", async () => {
  const key = `${prefix}:{d}:s:rate`;
  const a = new SharedRateLimiter(redis, key, 3, 200);
  const b = new SharedRateLimiter(redis, key, 3, 200);
  const t = performance.now();
  const releases = await Promise.all([a.acquire(), b.acquire(), a.acquire()]);
  for (const r of releases) r();
  await b.acquire();
  expect(performance.now() - t).toBeGreaterThanOrEqual(199);
});

it("should start a call's window when it completed, not when it was sent", async () => {
  const limiter = new SharedRateLimiter(redis, `${prefix}:{e}:s:rate`, 1, 100);
  const t = performance.now();
  const release = await limiter.acquire();
  await new Promise((r) => setTimeout(r, 150)); // the call takes 150 ms
  release();
  await limiter.acquire();
  expect(performance.now() - t).toBeGreaterThanOrEqual(249);
});
