/**
 * The one throttle of platform calls: the shared Redis limiter (src/sync/platform-calls/shared-rate-limiter.ts), against
 * real Redis. At most `max` calls per window across every holder of the key, a call's window starts
 * when it completed, not when it was sent, and directories of one platform account also share its window.
 */
import { Redis } from "ioredis";
import { platformAccountRateKey } from "../../src/store";
import { LimiterChain, SharedRateLimiter } from "../../src/sync/platform-calls/shared-rate-limiter";
import { TEST_REDIS_URL, cleanPrefix, testPrefix } from "../helpers/redis";
import { waitFor } from "../helpers/wait-for";

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

it("should move a completed call to its completion time for the other holders of the key, with no acquire of its own", async () => {
  const key = `${prefix}:{f}:s:rate`;
  const a = new SharedRateLimiter(redis, key, 1, 100);
  const b = new SharedRateLimiter(redis, key, 1, 100);
  const t = performance.now();
  const release = await a.acquire();
  const sent = Number((await redis.zrange(key, "0", "0", "WITHSCORES"))[1]);
  await new Promise((r) => setTimeout(r, 150)); // the call takes 150 ms
  release();
  await waitFor(async () => Number((await redis.zrange(key, "0", "0", "WITHSCORES"))[1]) >= sent + 150, 5000, "the call re-stamped");
  await b.acquire();
  expect(performance.now() - t).toBeGreaterThanOrEqual(249);
});

it("should hold two directories of one platform account to the account's window as well as their own", async () => {
  const account = `${prefix}:{acct-test}:rate`;
  const dirA = new LimiterChain([new SharedRateLimiter(redis, `${prefix}:{a}:s:rate`, 5, 200), new SharedRateLimiter(redis, account, 2, 200)]);
  const dirB = new LimiterChain([new SharedRateLimiter(redis, `${prefix}:{b}:s:rate`, 5, 200), new SharedRateLimiter(redis, account, 2, 200)]);
  const t = performance.now();
  for (const r of await Promise.all([dirA.acquire(), dirB.acquire()])) r();
  expect(await redis.zcard(account)).toBe(2);
  await dirA.acquire(); // its own window has room; the account's does not until the first calls' window passed
  expect(performance.now() - t).toBeGreaterThanOrEqual(199);
});

it("should key an account's window by its baseUrl, under the configured prefix", () => {
  expect(platformAccountRateKey("p", "https://acme.example.com/api/")).toBe(platformAccountRateKey("p", "https://ACME.example.com/api"));
  expect(platformAccountRateKey("p", "https://acme.example.com/api")).not.toBe(platformAccountRateKey("p", "https://other.example.com/api"));
  expect(platformAccountRateKey("p", "https://acme.example.com/api")).toMatch(/^p:\{acct-[0-9a-f]{16}\}:rate$/);
});
