/**
 * `npm run bench:platform` (not a test): platform client calls per second against an in-process simulator.
 *   1. no simulator rate limit, latency 0 ms and 20 ms: raw client throughput at CONCURRENCY;
 *   2. simulator rate limit R per second, the bridge's shared Redis limiter at R (the one throttle the sync
 *      engine uses, src/sync/platform-calls/shared-rate-limiter.ts; key under a private prefix, deleted at the end):
 *      achieved rate vs R (target ≥ 0.9 R) and 429s;
 *   3. the same without the limiter, to show what the limiter saves.
 * The call is generate-session for rotating external users. A 429 pauses that worker for Retry-After, as
 * the sync engine does. Env: CONCURRENCY (16), DURATION_MS (5000), RATE (200), RATE_DURATION_MS (1000), REDIS_URL.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { RateLimitedError, createPlatformClient } from "../../src/platform";
import { startSimulator } from "../../src/simulator";
import { SharedRateLimiter } from "../../src/sync/platform-calls/shared-rate-limiter";

interface RateLimitOptions {
  max: number;
  durationMs: number;
}
const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const PREFIX = `bench-platform-${randomUUID().slice(0, 8)}`;

const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const DURATION_MS = Number(process.env.DURATION_MS ?? 5000);
const RATE = Number(process.env.RATE ?? 200);
const RATE_DURATION_MS = Number(process.env.RATE_DURATION_MS ?? 1000);
const KEY = "bench-key-0000001";

interface Scenario {
  name: string;
  latencyMs: number;
  simRateLimit?: RateLimitOptions;
  clientRateLimit?: RateLimitOptions;
}

async function run(s: Scenario): Promise<void> {
  const sim = await startSimulator({
    port: 0,
    config: { apiKeys: [{ key: KEY }], deployments: [{ id: 1, name: "bench" }], faults: { latency: { fixedMs: s.latencyMs, jitterMs: 0 }, rateLimit: s.simRateLimit ?? null } },
  });
  const key = `${PREFIX}:{bench}:s:rate`;
  const limiter = s.clientRateLimit ? new SharedRateLimiter(redis, key, s.clientRateLimit.max, s.clientRateLimit.durationMs) : undefined;
  const client = createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEY, deploymentId: 1, maxConnections: CONCURRENCY, limiter });
  let ok = 0;
  let limited = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + DURATION_MS;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        try {
          await client.embed.generateSession({ deploymentId: 1, externalId: `user-${n++ % 1000}@bench.example` });
          ok++;
        } catch (err) {
          if (err instanceof RateLimitedError) {
            limited++;
            await new Promise((r) => setTimeout(r, Math.min(err.retryAfterMs ?? 1000, Math.max(0, deadline - performance.now()))));
          } else failed++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const rate = ok / elapsed;
  const limit = s.simRateLimit ? (s.simRateLimit.max * 1000) / s.simRateLimit.durationMs : undefined;
  const vsLimit = limit ? `  R=${limit.toFixed(0)}/s  achieved ${((rate / limit) * 100).toFixed(1)}% of R ${rate >= 0.9 * limit ? "(≥90% ✓)" : "(<90% ✗)"}` : "";
  console.log(`${s.name.padEnd(44)} ${rate.toFixed(0).padStart(6)} calls/s  ok ${ok}  429s ${limited}  errors ${failed}${vsLimit}`);
  await client.close();
  await sim.close();
  await redis.del(key);
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, concurrency ${CONCURRENCY}, ${DURATION_MS} ms per scenario, simulator in-process`);
  const R = { max: RATE, durationMs: RATE_DURATION_MS };
  const scenarios: Scenario[] = [
    { name: "no limit, latency 0 ms", latencyMs: 0 },
    { name: "no limit, latency 20 ms", latencyMs: 20 },
    { name: "sim limit R, shared limiter R, latency 0 ms", latencyMs: 0, simRateLimit: R, clientRateLimit: R },
    { name: "sim limit R, shared limiter R, latency 20 ms", latencyMs: 20, simRateLimit: R, clientRateLimit: R },
    { name: "sim limit R, no limiter, latency 0 ms", latencyMs: 0, simRateLimit: R },
    { name: "sim limit R, no limiter, latency 20 ms", latencyMs: 20, simRateLimit: R },
  ];
  for (const s of scenarios) await run(s);
  redis.disconnect();
}

void main();
