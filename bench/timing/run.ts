/**
 * `npm run bench:timing` (not a test): the timing claims the tests no longer assert (a test waits for the
 * event that matters and never bounds how long it takes). Each claim is measured over ROUNDS
 * rounds beside its baseline; printed: the medians, the median of the per-round ratios, and the bound the
 * test used to assert, with ✓/✗.
 *   isolation  a directory's 5 users sync while another directory is held by 429s, vs. the same with no 429s
 *              (was rate-limit.test.ts: < 1000 ms)
 *   timeout    a call answered after 300 ms with timeoutMs 80 and 2 tries, vs. those 2 × 80 ms (was transport.test.ts: < 290 ms)
 *   shutdown   close() of an idle worker runtime whose next sweep is 5 s away, vs. 1 s, the blocking outbox
 *              read of earlier releases (the dispatcher's idle wait on the outbox signal is cut short by close) (was graceful-shutdown.test.ts: < 1500 ms)
 *   recovery   a SIGKILLed worker process's active jobs completed by a new worker, vs. sync.lockDurationMs 2 s
 *              (was worker-kill.test.ts: < 30 s)
 * Redis at REDIS_URL (default redis://127.0.0.1:6379), each round under its own key prefix (deleted after).
 * Env: ROUNDS (5).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "../../src/config/load";
import type { Config } from "../../src/config/schema";
import { createLogger } from "../../src/observability/logger";
import { createPlatformClient } from "../../src/platform";
import { startSyncRuntime, type SyncRuntime } from "../../src/roles/worker";
import { userBody } from "../../src/scim/resources/input";
import { startSimulator, type RunningSimulator } from "../../src/simulator";
import { UserStore, createQueueConnection, waitReady } from "../../src/store";
import { SyncStateStore } from "../../src/sync/state/sync-state";
import { SyncQueues } from "../../src/sync/admission/queues";
import { cleanPrefix } from "../../test/helpers/redis";
import { directoryQueue } from "../../test/helpers/directory-queue";

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const ROOT = path.resolve(__dirname, "../..");
const KEY = "bench-timing-key-0001";
const KEY2 = "bench-timing-key-0002";
const logger = createLogger("silent");

/** A simulator with two keys, a config with directories `a` (key KEY) and `b` (KEY2), and the stores. */
async function setup(sync: Record<string, unknown> = {}) {
  const sim = await startSimulator({ port: 0, config: { apiKeys: [{ key: KEY }, { key: KEY2 }], deployments: [{ id: 1, name: "bench" }], faults: { rateLimit: null } } });
  const prefix = `bench-timing-${randomUUID()}`;
  const dir = (id: string, env: string) => ({
    id, tokenHashes: [randomUUID().replace(/-/g, "").padEnd(64, "0")], target: "workforce",
    platform: { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: env }, rateLimit: { max: 5000, durationMs: 1000 },
  });
  const config = loadConfig({ env: { REDIS_URL }, overrides: { redis: { keyPrefix: prefix }, log: { level: "silent" }, sync: { backoffMs: 100, ...sync }, directories: [dir("a", "BENCH_KEY_A"), dir("b", "BENCH_KEY_B")] } });
  const redis = createQueueConnection(REDIS_URL);
  await waitReady(redis);
  const env = { BENCH_KEY_A: KEY, BENCH_KEY_B: KEY2 };
  return {
    sim, config, redis, env, users: new UserStore(redis, prefix), state: new SyncStateStore(redis, prefix),
    close: async (runtimes: Array<SyncRuntime | undefined>) => {
      for (const r of runtimes) await r?.close();
      await sim.close();
      await cleanPrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

/** Writes `n` users into a directory's store (and outbox); returns their ids. */
async function writeUsers(users: UserStore, dir: string, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    const email = `${tag}.${i}.${id.slice(0, 8)}@example.com`;
    await users.write(dir, id, userBody({ userName: email, emails: [{ value: email, primary: true, type: "work" }], active: true }).body, "create");
    ids.push(id);
  }
  return ids;
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 60000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const allSynced = (state: SyncStateStore, dir: string, ids: string[]) => async () =>
  (await Promise.all(ids.map((id) => state.get(dir, "user", id)))).every((s) => s.status === "synced");

/** isolation: ms until `b`'s 5 users are synced, with `a` held by 429s (storm) or not. */
async function isolation(storm: boolean): Promise<number> {
  const s = await setup();
  const runtime = await startSyncRuntime(s.config, logger, { env: s.env });
  try {
    if (storm) {
      // each key may make 20 calls an hour: a's 40 users exhaust it, b's 5 users (10 calls) fit
      s.sim.setFaults({ rateLimit: { max: 20, durationMs: 3_600_000, retryAfterSeconds: 1 } });
      const held = await writeUsers(s.users, "a", 40, "storm");
      await until("a 429 in a", async () => (await Promise.all(held.map((id) => s.state.get("a", "user", id)))).some((x) => x.lastError === "rate limit exceeded"));
    }
    const started = performance.now();
    const ids = await writeUsers(s.users, "b", 5, "calm");
    await until("b synced", allSynced(s.state, "b", ids));
    return performance.now() - started;
  } finally {
    await s.close([runtime]);
  }
}

/** timeout: ms until a call answered after 300 ms gives up with timeoutMs 80 and 2 tries. */
async function timeout(): Promise<number> {
  const sim: RunningSimulator = await startSimulator({ port: 0, config: { apiKeys: [{ key: KEY }], deployments: [{ id: 1, name: "bench" }], faults: { latency: { fixedMs: 300, jitterMs: 0 } } } });
  const client = createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEY, deploymentId: 1, timeoutMs: 80 });
  try {
    const started = performance.now();
    const err = await client.deployments.list().then(() => undefined, (e: { code?: string }) => e);
    if (err?.code !== "TIMEOUT") throw new Error("expected a TIMEOUT");
    return performance.now() - started;
  } finally {
    await client.close();
    await sim.close();
  }
}

/** shutdown: ms that close() of an idle runtime takes, its next sweep 5 s away. */
async function shutdown(): Promise<number> {
  const s = await setup({ sweepIntervalMs: 5000 });
  const runtime = await startSyncRuntime(s.config, logger, { env: s.env });
  await sleep(200); // idle: the sweeper waits, the reader blocks on the outbox
  const started = performance.now();
  await runtime.close();
  const ms = performance.now() - started;
  await s.close([]);
  return ms;
}

/** recovery: ms from SIGKILL of a worker process holding active jobs until a new worker completed them all. */
async function recovery(lockMs: number): Promise<number> {
  const s = await setup({ lockDurationMs: lockMs });
  s.sim.setFaults({ latency: { fixedMs: 400, jitterMs: 0 } });
  const config: Config = s.config;
  const loader = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
  const child = spawn(process.execPath, ["--import", loader, "src/main.ts", "worker"], {
    cwd: ROOT, stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, ...s.env, SCIM_BRIDGE_CONFIG: "", SCIM_BRIDGE_CONFIG_JSON: JSON.stringify({ ...config, log: { level: "info" }, metrics: { workerPort: 0 } }), METRICS_PORT: "", LOG_LEVEL: "" },
  });
  let runtime: SyncRuntime | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => { out += d; if (out.includes('"msg":"scim-bridge started"')) resolve(); });
      child.once("exit", () => reject(new Error("the worker process exited at start")));
    });
    const queues = new SyncQueues(s.redis, config);
    await writeUsers(s.users, "a", 40, "killed");
    await until("jobs active in the worker process", async () => (await directoryQueue(queues, "a").getActiveCount()) >= 4);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const killed = performance.now();
    const held = (await directoryQueue(queues, "a").getJobs(["active"])).map((j) => j.id!);
    runtime = await startSyncRuntime(config, logger, { env: s.env });
    await until("the dead worker's jobs completed", async () => (await Promise.all(held.map((id) => directoryQueue(queues, "a").getJob(id)))).every((j) => !!j?.finishedOn));
    const ms = performance.now() - killed;
    await queues.close();
    return ms;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await s.close([runtime]);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function claim(name: string, measure: () => Promise<number>, baselineName: string, baseline: () => Promise<number>, bound: number): Promise<void> {
  const m: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    b.push(await baseline());
    m.push(await measure());
  }
  const ratios = m.map((x, i) => x / b[i]);
  const med = median(m);
  console.log(`${name.padEnd(10)} median ${med.toFixed(0).padStart(6)} ms  vs ${baselineName.padEnd(34)} median ${median(b).toFixed(0).padStart(6)} ms  ratio ${median(ratios).toFixed(2).padStart(5)}  bound < ${bound} ms ${med < bound ? "✓" : "✗"}  (rounds: ${m.map((x) => x.toFixed(0)).join(", ")})`);
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${ROUNDS} rounds per claim, Redis ${REDIS_URL}`);
  await claim("isolation", () => isolation(true), "the same without 429s", () => isolation(false), 1000);
  await claim("timeout", timeout, "2 tries × timeoutMs 80", async () => 160, 290);
  await claim("shutdown", shutdown, "1 s (earlier releases' blocking outbox read)", async () => 1000, 1500);
  await claim("recovery", () => recovery(2000), "sync.lockDurationMs", async () => 2000, 30000);
}

main().then(() => process.exit(0), (err: Error) => {
  console.error(`bench:timing failed: ${err.message}`);
  process.exit(1);
});
