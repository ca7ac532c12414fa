/**
 * `npm run bench:soak` (not a test): a steady mixed SCIM load from four simulated IdPs at once (two
 * Okta-like, two Entra-like directories: creates, lookups, profile updates, deactivations with string
 * booleans, group member adds and removes) against a bridge `server` and two `worker` processes, while
 * the workers sync into a simulator process that adds 0–20 ms latency, answers ~1 % of calls with a 5xx
 * and rate-limits above SIM_RATE calls/s (429 + Retry-After). Every 45 s one IdP in turn also pushes 60
 * creates at once (a large group assigned), which drives the sync past that limit: 429s recur.
 *
 * Every 30 s it prints the SCIM request error rate and p99 latency of the window, the sync lag (pending
 * outbox entries and jobs, age of the oldest), the faults the platform injected, and the RSS of the server
 * and workers. At the end: RSS first vs last with a verdict (flat or growing), then the load stops, the
 * sync settles, and the bridge's state is compared with the simulator's, user by user (attributes,
 * active) and group by group (members), per directory. Exit code 1 when they differ, memory grows or a
 * request failed. The Redis key prefix is deleted at the end.
 *
 * Env: SOAK_SECONDS (540: about 10 minutes with start and settling), SOAK_RATE (operations/s per IdP, 8),
 * SIM_RATE (platform calls/s before 429, 50), DIR_RATE (the bridge's limit per directory, 20), REDIS_URL (redis://127.0.0.1:6379).
 */
import { randomUUID } from "node:crypto";
import { hashToken } from "../../src/auth/token";
import { DirectoryKeys, GroupStore, UserStore, createQueueConnection, waitReady } from "../../src/store";
import { SyncStateStore } from "../../src/sync/state/sync-state";
import { loadConfig } from "../../src/config/load";
import { directoryQueue, type DirectoryQueue } from "../../test/helpers/directory-queue";
import { SyncQueues } from "../../src/sync/admission/queues";
import { ProcessSet, startBridgeProcess, startSimProcess, type SimProcess } from "../../test/helpers/processes";
import { cleanPrefix } from "../../test/helpers/redis";
import { bridgeGroups, bridgeUsers, diffWorkforce } from "../../test/helpers/state-diff";
import { DirectoryModel, nextOperation, type Dialect, type Exchange } from "./idp-mix";
import { RequestWindow, RssSeries } from "./stats";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 540);
const RATE = Number(process.env.SOAK_RATE ?? 8);
const SIM_RATE = Number(process.env.SIM_RATE ?? 50);
/** Each directory's own limit (`directories[].rateLimit`): together they exceed SIM_RATE only in bursts. */
const DIR_RATE = Number(process.env.DIR_RATE ?? 20);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REPORT_MS = 30000;
const SAMPLE_MS = 5000;
const LANES = 4;
const BURST_EVERY_S = 45;
const BURST_USERS = 60;
const SETTLE_MS = 180000;
const KEY = "soak-platform-key-0001";
const DIRECTORIES: Array<[string, Dialect]> = [["okta-a", "okta"], ["okta-b", "okta"], ["entra-a", "entra"], ["entra-b", "entra"]];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const token = (dir: string) => `soak-token-${dir}`;
const f1 = (n: number) => n.toFixed(1);

type Recorder = (ms: number, ok: boolean, what: string) => void;

/** Sends one exchange and records its latency and whether its status is one of those expected. */
async function send(base: string, dir: string, x: Exchange, record: Recorder): Promise<void> {
  const started = performance.now();
  let status = 0;
  let body: Record<string, unknown> | undefined;
  try {
    const res = await fetch(`${base}/scim/v2/${dir}${x.path}`, {
      method: x.method, signal: AbortSignal.timeout(30000),
      headers: { Authorization: `Bearer ${token(dir)}`, ...(x.body ? { "Content-Type": "application/scim+json" } : {}) },
      body: x.body ? JSON.stringify(x.body) : undefined,
    });
    status = res.status;
    const text = await res.text();
    body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    status = 0;
  }
  const ok = x.expect.includes(status);
  record(performance.now() - started, ok, `${x.method} ${x.path.split("?")[0].replace(/\/[0-9a-f-]{36}/, "/:id")} → ${status}`);
  if (ok) x.then?.(body);
}

/** Pending sync work across directories: outbox entries and jobs, and the age of the oldest. */
async function syncLag(redis: ReturnType<typeof createQueueConnection>, prefix: string, queues: Map<string, DirectoryQueue>): Promise<{ pending: number; oldestS: number }> {
  let pending = 0;
  let oldest = Date.now();
  for (const [dir, q] of queues) {
    const outbox = new DirectoryKeys(prefix, dir).outbox;
    pending += await redis.xlen(outbox);
    const first = (await redis.xrange(outbox, "-", "+", "COUNT", 1))[0];
    if (first) oldest = Math.min(oldest, Number(first[0].split("-")[0]));
    const counts = await q.getJobCounts("waiting", "prioritized", "active", "delayed");
    pending += Object.values(counts).reduce((a, b) => a + b, 0);
    for (const j of [...await q.getJobs(["waiting", "prioritized"], 0, 0), ...await q.getJobs(["delayed", "active"], 0, 200)]) {
      if (j?.timestamp) oldest = Math.min(oldest, j.timestamp);
    }
  }
  return { pending, oldestS: (Date.now() - oldest) / 1000 };
}

async function faultCounts(sim: SimProcess): Promise<{ rateLimited: number; errors: number; calls: number }> {
  const { counters } = await sim.state();
  return { rateLimited: counters.faults.rateLimited, errors: counters.faults.errors, calls: counters.total.reads + counters.total.writes };
}

async function main(): Promise<number> {
  const set = new ProcessSet();
  const prefix = `soak-${randomUUID()}`;
  const redis = createQueueConnection(REDIS_URL);
  redis.on("error", () => undefined);
  const queues = new Map<string, DirectoryQueue>();
  let shards: SyncQueues | undefined;
  const stopSignal = () => void set.killAll().then(() => process.exit(130));
  process.once("SIGINT", stopSignal);
  try {
    await waitReady(redis, 10000);
    const sim = await startSimProcess(set, {
      tenant: { name: "soak" }, apiKeys: [{ name: "bridge", key: KEY }], deployments: [{ id: 1, name: "production" }],
      faults: { latency: { fixedMs: 0, jitterMs: 20 }, errors: { rate: 0.01 }, rateLimit: { max: SIM_RATE, durationMs: 1000 } },
    });
    const config = {
      redis: { url: REDIS_URL, keyPrefix: prefix },
      server: { host: "127.0.0.1", port: 0 },
      log: { level: "info" },
      metrics: { workerPort: 0 },
      sync: { attempts: 25, backoffMs: 500, maxBackoffMs: 10000, sweepIntervalMs: 2000 },
      directories: DIRECTORIES.map(([id, dialect]) => ({
        id, displayName: `${dialect} ${id}`, tokenHashes: [hashToken(token(id))], target: "workforce",
        platform: { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: "SOAK_PLATFORM_KEY" },
        rateLimit: { max: DIR_RATE, durationMs: 1000 }, concurrency: 8,
        // the soak's IdPs deactivate a random share of their users on purpose: the deprovision brake,
        // which would hold them for an operator, is set past what the soak sends
        safety: { deprovisionBrake: { max: 1_000_000, percent: 100 } },
      })),
    };
    const server = await startBridgeProcess(set, "server", config);
    const workers = [await startBridgeProcess(set, "worker", config, { SOAK_PLATFORM_KEY: KEY }), await startBridgeProcess(set, "worker", config, { SOAK_PLATFORM_KEY: KEY })];
    shards = new SyncQueues(redis, loadConfig({ env: { REDIS_URL }, overrides: config }));
    for (const [dir] of DIRECTORIES) queues.set(dir, directoryQueue(shards, dir));
    const rss = [new RssSeries("server", server.proc.pid), ...workers.map((w, i) => new RssSeries(`worker-${i + 1}`, w.proc.pid))];
    console.log(`soak: ${SECONDS} s of load, ${DIRECTORIES.length} IdPs (${DIRECTORIES.map(([d, k]) => `${d}:${k}`).join(", ")}), ${RATE} ops/s each, ${LANES} connections each`);
    console.log(`bridge: server pid ${server.proc.pid} at ${server.url}, workers pid ${workers.map((w) => w.proc.pid).join(", ")}; Redis ${REDIS_URL} prefix ${prefix}`);
    console.log(`platform simulator: latency 0–20 ms, 1 % 5xx, 429 above ${SIM_RATE} calls/s; bridge limit ${DIR_RATE} calls/s per directory`);

    // the load: per IdP, operations scheduled RATE per second over LANES connections
    const models = DIRECTORIES.map(([id, dialect]) => new DirectoryModel(id, dialect));
    let window = new RequestWindow();
    const total = new RequestWindow();
    const record: Recorder = (ms, ok, what) => { window.record(ms, ok, what); total.record(ms, ok, what); };
    const started = Date.now();
    const endAt = started + SECONDS * 1000;
    const lanes = models.flatMap((m) => {
      let nextAt = Date.now();
      return Array.from({ length: LANES }, async () => {
        while (Date.now() < endAt) {
          const at = (nextAt += 1000 / RATE);
          if (at > Date.now()) await sleep(at - Date.now());
          for (const x of nextOperation(m).exchanges) await send(server.url!, m.id, x, record);
        }
      });
    });
    // on top of the steady mix, every BURST_EVERY_S one IdP in turn pushes BURST_USERS creates at once (an
    // assignment of a large group): the directories' sync bursts past the platform's limit, so 429s recur
    const bursts = (async () => {
      for (let k = 0; ; k++) {
        await sleep(Math.min(BURST_EVERY_S * 1000, Math.max(0, endAt - Date.now())));
        if (Date.now() >= endAt - 5000) return;
        const m = models[k % models.length];
        const creates = Array.from({ length: BURST_USERS }, () => nextOperation(m, "create user").exchanges);
        await Promise.all(Array.from({ length: LANES * 2 }, async () => {
          for (let x = creates.pop(); x; x = creates.pop()) for (const e of x) await send(server.url!, m.id, e, record);
        }));
      }
    })();

    // reports
    let lastFaults = await faultCounts(sim);
    let nextSample = started + SAMPLE_MS;
    let nextReport = started + REPORT_MS;
    let windowStart = started;
    while (Date.now() < endAt) {
      await sleep(Math.max(0, Math.min(nextSample, nextReport, endAt) - Date.now()));
      const t = Date.now() - started;
      if (Date.now() >= nextSample) {
        if (t >= REPORT_MS) for (const s of rss) s.sample(t); // after a 30 s warm-up
        nextSample += SAMPLE_MS;
      }
      if (Date.now() >= nextReport || Date.now() >= endAt) {
        const w = window;
        const seconds = (Date.now() - windowStart) / 1000;
        window = new RequestWindow();
        windowStart = Date.now();
        const lag = await syncLag(redis, prefix, queues);
        const faults = await faultCounts(sim);
        const mem = rss.map((s) => `${s.name} ${f1(s.sample(t))}`).join(", ");
        console.log(`[${String(Math.round(t / 1000)).padStart(4)} s] SCIM ${w.requests} req (${f1(w.requests / seconds)}/s), errors ${w.errors} (${(100 * w.errors / Math.max(1, w.requests)).toFixed(2)} %), p99 ${f1(w.p99())} ms`
          + ` | sync lag: ${lag.pending} pending, oldest ${f1(lag.oldestS)} s | platform: ${faults.calls - lastFaults.calls} calls, ${faults.rateLimited - lastFaults.rateLimited} × 429, ${faults.errors - lastFaults.errors} × 5xx | RSS MiB: ${mem}`);
        if (w.unexpected.size) console.log(`         unexpected: ${[...w.unexpected].map(([k, n]) => `${k} ×${n}`).join("; ")}`);
        lastFaults = faults;
        nextReport += REPORT_MS;
      }
    }
    await Promise.all([...lanes, bursts]);

    // memory over time
    const every = Math.max(1, Math.round(REPORT_MS / SAMPLE_MS));
    console.log(`memory over time (RSS in MiB every ${(every * SAMPLE_MS) / 1000} s after a ${REPORT_MS / 1000} s warm-up; sampled every ${SAMPLE_MS / 1000} s):`);
    for (const s of rss) console.log(`  ${s.name.padEnd(9)} ${s.samples.filter((_, i) => i % every === 0 || i === s.samples.length - 1).map((x) => Math.round(x.mib)).join(" ")}`);
    console.log("memory verdict (peak of the first third → peak of the last third, least-squares trend):");
    let flat = true;
    for (const s of rss) {
      const v = s.verdict();
      flat &&= v.flat;
      console.log(`  ${s.name.padEnd(9)} ${f1(v.first)} → ${f1(v.last)} (${v.last >= v.first ? "+" : ""}${f1(v.last - v.first)}), ${v.slope >= 0 ? "+" : ""}${v.slope.toFixed(2)} MiB/min over ${s.samples.length} samples: ${v.flat ? "flat" : "GROWING"}`);
    }
    console.log(`SCIM overall: ${total.requests} requests, ${total.errors} errors (${(100 * total.errors / Math.max(1, total.requests)).toFixed(3)} %), p99 ${f1(total.p99())} ms`);

    // the load has stopped: wait for the sync to settle, then compare bridge and platform
    const users = new UserStore(redis, prefix);
    const groups = new GroupStore(redis, prefix);
    const state = new SyncStateStore(redis, prefix);
    const settleStart = Date.now();
    let diffs: Map<string, string[]> = new Map();
    for (;;) {
      const lag = await syncLag(redis, prefix, queues);
      if (lag.pending === 0) {
        const sim2 = await sim.state();
        diffs = new Map();
        for (const [dir] of DIRECTORIES) diffs.set(dir, diffWorkforce(dir, await bridgeUsers(users, dir), await bridgeGroups(groups, dir), sim2));
        if ([...diffs.values()].every((d) => d.length === 0)) break;
      }
      if (Date.now() - settleStart > SETTLE_MS) break;
      await sleep(1000);
    }
    console.log(`sync settled ${f1((Date.now() - settleStart) / 1000)} s after the load stopped`);
    let match = true;
    for (const [dir] of DIRECTORIES) {
      const u = await bridgeUsers(users, dir);
      const g = await bridgeGroups(groups, dir);
      const d = diffs.get(dir) ?? ["not compared (sync never settled)"];
      const c = await state.counts(dir);
      match &&= d.length === 0 && c.failed === 0;
      console.log(`  ${dir.padEnd(8)} ${u.length} users (${u.filter((x) => x.body.active !== false).length} active), ${g.length} groups, ${g.reduce((a, x) => a + (x.members?.length ?? 0), 0)} memberships;`
        + ` sync state ${c.synced} synced, ${c.deprovisioned} deprovisioned, ${c.failed} failed: ${d.length === 0 ? "bridge = platform" : `${d.length} DIFFERENCES`}`);
      for (const line of d.slice(0, 10)) console.log(`      ${line}`);
    }
    const ok = match && flat && total.errors === 0;
    console.log(`RESULT: ${ok ? "PASS" : "FAIL"} (state ${match ? "matches" : "DIFFERS"}, memory ${flat ? "flat" : "GROWING"}, ${total.errors} request errors)`);
    return ok ? 0 : 1;
  } finally {
    await set.killAll();
    await shards?.close().catch(() => undefined);
    if (redis.status === "ready") await cleanPrefix(redis, prefix);
    redis.disconnect();
    process.off("SIGINT", stopSignal);
  }
}

main().then((code) => process.exit(code), (err: Error) => {
  console.error(`soak failed: ${err.stack ?? err.message}`);
  process.exit(2);
});
