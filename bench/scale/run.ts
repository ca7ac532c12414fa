/**
 * bench/scale — many directories on few connections (issue 12 item 5).
 *
 * BENCH_DIRS (1,000) workforce directories, each pushed BENCH_USERS (100) users and BENCH_GROUPS (10) groups
 * of BENCH_MEMBERS (10) members over SCIM, all directories at once (BENCH_PUSH_CLIENTS (64) connections,
 * the requests interleaved across directories), into one bridge `server` process, synced by BENCH_WORKERS
 * ("1,3": one run per count) `worker` processes into the platform simulator (its own process, no faults,
 * no rate limit). The bridge runs compiled (`dist/main.js`, built first), one config file for all.
 *
 * Per run it prints: push req/s; the time from the first push until the simulator holds every user, group
 * and membership; Redis connections (TCP connections to the Redis port(s), read from /proc) and peak RSS of
 * every process; and each directory's wait for its first sync (its first push → its first synced item):
 * median, p99, max and max ÷ median. Then the ratio of the runs (3 workers ÷ 1 worker).
 * Goals: ≤ 16 connections and < 250 MiB RSS per worker; no directory waits more than 2× the median.
 *
 * BENCH_REDIS ("single"): `single` uses REDIS_URL; a Redis Cluster is not wired in yet (it needs the
 * cluster connection factory of src/store, REDIS_CLUSTER_NODES).
 * Keys under `bench-scale-<uuid>` (and its queue shards `{bench-scale-<uuid>:q<n>}`), deleted at the end,
 * also on Ctrl-C. Run: `npm run bench:scale` (e.g. `BENCH_USERS=20 BENCH_GROUPS=2 npm run bench:scale`).
 */
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import type { Pool } from "undici";
import { hashToken } from "../../src/auth/token";
import { SyncStateStore } from "../../src/store";
import { ProcessSet, startSimProcess, type SimProcess } from "../../test/helpers/processes";
import { freePort, rssMiB, startChild, type ServerChild } from "../scim/children";
import { deleteKeys, envNumber, runBench } from "../scim/harness";
import { makePool } from "../scim/load";
import { fmt } from "../scim/report";

const ROOT = path.resolve(__dirname, "../..");
const CHILD_JS = path.join(ROOT, "node_modules/.cache/scim-bridge-bench");
const DIRS = envNumber("BENCH_DIRS", 1000);
const USERS = envNumber("BENCH_USERS", 100);
const GROUPS = envNumber("BENCH_GROUPS", 10);
const MEMBERS = Math.min(envNumber("BENCH_MEMBERS", 10), USERS);
const PUSH_CLIENTS = envNumber("BENCH_PUSH_CLIENTS", 64);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? "1,3").split(",").map(Number).filter((n) => n > 0);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MODE = process.env.BENCH_REDIS ?? "single";
const PLATFORM_KEY = `bench-scale-key-${randomBytes(6).toString("hex")}`;
const SIM_TOKEN = "bench-sim-token";

const set = new ProcessSet();
const children: ServerChild[] = [];
const pools: Pool[] = [];
const prefixes: string[] = [];
let redis: Redis | undefined;

const dirId = (i: number) => `d${String(i).padStart(4, "0")}`;
const tokenOf = (dir: string, tag: string) => `bench-${tag}-${dir}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** TCP connections of `pid` to any of `ports` (its socket fds matched against /proc/net/tcp{,6}). */
function redisConnections(pid: number, ports: number[]): number {
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  const hex = new Set(ports.map((p) => p.toString(16).toUpperCase().padStart(4, "0")));
  let n = 0;
  for (const file of [`/proc/${pid}/net/tcp`, `/proc/${pid}/net/tcp6`]) {
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const remotePort = f[2].split(":")[1];
      if (f[3] === "01" && hex.has(remotePort) && inodes.has(f[9])) n++; // 01: ESTABLISHED
    }
  }
  return n;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface RunResult {
  workers: number;
  pushRps: number;
  pushS: number;
  matchS: number;
  firstSync: { median: number; p99: number; max: number };
  conns: Record<string, number>;
  rss: Record<string, number>;
}

/** The SCIM requests of one directory, in push order: users, then groups with their first members. */
function requestsOf(dir: string, tag: string): Array<{ path: string; body: object }> {
  const out: Array<{ path: string; body: object }> = [];
  for (let u = 0; u < USERS; u++) {
    out.push({ path: "/Users", body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `u${u}.${dir}.${tag}@bench.example`, active: true, name: { givenName: `U${u}`, familyName: dir } } });
  }
  for (let g = 0; g < GROUPS; g++) out.push({ path: "/Groups", body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `g${g} ${dir} ${tag}` } });
  return out;
}

async function oneRun(sim: SimProcess, workersN: number, redisPorts: number[]): Promise<RunResult> {
  const prefix = `bench-scale-${randomUUID()}`;
  prefixes.push(prefix);
  const tag = randomBytes(3).toString("hex");
  const dirs = Array.from({ length: DIRS }, (_, i) => dirId(i));
  const port = await freePort();
  const config = {
    server: { host: "127.0.0.1", port, publicBaseUrl: `http://127.0.0.1:${port}` },
    redis: { url: REDIS_URL, keyPrefix: prefix },
    log: { level: "warn" },
    metrics: { workerPort: 0 },
    sync: { sweepIntervalMs: 2000 },
    directories: dirs.map((id) => ({
      id, tokenHashes: [hashToken(tokenOf(id, tag))], target: "workforce",
      platform: { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: "BENCH_PLATFORM_KEY" },
      rateLimit: { max: 1000, durationMs: 1000 }, concurrency: 4,
    })),
  };
  const file = path.join(set.tempDir("scale"), "config.json");
  fs.writeFileSync(file, JSON.stringify(config));
  const env = { PATH: process.env.PATH, SCIM_BRIDGE_CONFIG: file, BENCH_PLATFORM_KEY: PLATFORM_KEY };
  const preload = path.join(CHILD_JS, "exit-with-parent.js");
  const main = path.join(ROOT, "dist/main.js");
  const server = await startChild("server", ["--max-semi-space-size=4", main, "server"], env, port, "/healthz", preload);
  children.push(server);
  const workers: ServerChild[] = [];
  for (let w = 0; w < workersN; w++) {
    const mport = await freePort();
    const child = await startChild(`worker-${w + 1}`, ["--max-semi-space-size=4", main, "worker"], { ...env, METRICS_PORT: String(mport) }, mport, "/healthz", preload);
    children.push(child);
    workers.push(child);
  }
  const procs = [server, ...workers];
  const peakRss: Record<string, number> = {};
  const peakConns: Record<string, number> = {};
  const sample = () => {
    for (const p of procs) {
      try {
        peakRss[p.name] = Math.max(peakRss[p.name] ?? 0, rssMiB(p.pid));
        peakConns[p.name] = Math.max(peakConns[p.name] ?? 0, redisConnections(p.pid, redisPorts));
      } catch { /* exited */ }
    }
  };
  sample();
  const sampler = setInterval(sample, 1000);

  // per directory: its first push and its first synced item
  const state = new SyncStateStore(redis!, prefix);
  const firstPush = new Map<string, number>();
  const firstSync = new Map<string, number>();
  let watching = true;
  const watcher = (async () => {
    while (watching && firstSync.size < dirs.length) {
      const pending = dirs.filter((d) => !firstSync.has(d) && firstPush.has(d));
      if (pending.length) {
        const pipe = redis!.pipeline();
        for (const d of pending) pipe.scard(state.statusKey(d, "synced"));
        const res = (await pipe.exec()) ?? [];
        const now = Date.now();
        pending.forEach((d, i) => { if (Number(res[i]?.[1] ?? 0) > 0) firstSync.set(d, now); });
      }
      await sleep(200);
    }
  })();

  // the push: requests interleaved across directories (every directory starts at once), groups after users
  const pool = makePool(server.origin, PUSH_CLIENTS);
  pools.push(pool);
  const perDir = dirs.map((d) => ({ d, reqs: requestsOf(d, tag), ids: [] as string[] }));
  const order: Array<{ i: number; r: number }> = [];
  const longest = USERS + GROUPS;
  for (let r = 0; r < longest; r++) for (let i = 0; i < perDir.length; i++) if (r < perDir[i].reqs.length) order.push({ i, r });
  let next = 0;
  let sent = 0;
  const t0 = Date.now();
  const send = async (method: string, dir: string, p: string, body: object): Promise<Record<string, unknown>> => {
    const res = await pool.request({
      method: method as "POST", path: `/scim/v2/${dir}${p}`, body: JSON.stringify(body),
      headers: { authorization: `Bearer ${tokenOf(dir, tag)}`, "content-type": "application/scim+json" },
    });
    const text = await res.body.text();
    sent++;
    if (res.statusCode >= 300) throw new Error(`${method} ${dir}${p}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) as Record<string, unknown> : {};
  };
  await Promise.all(Array.from({ length: PUSH_CLIENTS }, async () => {
    for (;;) {
      const k = next++;
      if (k >= order.length) return;
      const { i, r } = order[k];
      const pd = perDir[i];
      if (!firstPush.has(pd.d)) firstPush.set(pd.d, Date.now());
      const req = pd.reqs[r];
      const created = await send("POST", pd.d, req.path, req.body);
      if (req.path === "/Users") pd.ids[r] = String(created.id);
      else if (MEMBERS > 0) {
        const g = r - USERS;
        const wanted = Array.from({ length: MEMBERS }, (_, m) => (g * MEMBERS + m) % USERS);
        while (wanted.some((u) => pd.ids[u] === undefined)) await sleep(20); // a member's POST still in flight
        const members = wanted.map((u) => ({ value: pd.ids[u] }));
        await send("PATCH", pd.d, `/Groups/${String(created.id)}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "add", path: "members", value: members }] });
      }
    }
  }));
  const pushMs = Date.now() - t0;

  // until the simulator holds every user, group and membership of this run
  const wantUsers = DIRS * USERS;
  const wantGroups = DIRS * GROUPS;
  const wantMembers = DIRS * GROUPS * MEMBERS;
  let last = "";
  for (;;) {
    const s = await sim.state();
    const users = s.scim.users.filter((u) => u.userName.endsWith(`.${tag}@bench.example`)).length;
    const groups = s.scim.groups.filter((g) => g.displayName.endsWith(` ${tag}`));
    const members = groups.reduce((a, g) => a + g.members.length, 0);
    last = `${users}/${wantUsers} users, ${groups.length}/${wantGroups} groups, ${members}/${wantMembers} members`;
    if (users >= wantUsers && groups.length >= wantGroups && members >= wantMembers) break;
    if (Date.now() - t0 > 30 * 60_000) throw new Error(`the simulator did not match within 30 minutes: ${last}`);
    await sleep(1000);
  }
  const matchMs = Date.now() - t0;
  watching = false;
  await watcher;
  clearInterval(sampler);
  sample();

  const waits = dirs.map((d) => (firstSync.get(d) ?? Date.now()) - (firstPush.get(d) ?? t0)).sort((a, b) => a - b);
  const result: RunResult = {
    workers: workersN, pushRps: sent / (pushMs / 1000), pushS: pushMs / 1000, matchS: matchMs / 1000,
    firstSync: { median: percentile(waits, 50), p99: percentile(waits, 99), max: waits[waits.length - 1] },
    conns: peakConns, rss: peakRss,
  };
  await pool.close();
  for (const c of procs) await c.stop();
  children.splice(0);
  // the simulator keeps this run's users; the next run's names carry another tag
  await deleteKeys(redis!, prefix);
  return result;
}

function print(r: RunResult): void {
  const w = Object.keys(r.rss).filter((n) => n.startsWith("worker"));
  console.log(`\n${r.workers} worker process(es), ${MODE} Redis:`);
  console.log(`  push: ${fmt(r.pushRps)} req/s (${fmt(r.pushS)} s); simulator matched after ${fmt(r.matchS)} s`);
  console.log(`  first sync wait per directory: median ${fmt(r.firstSync.median / 1000)} s, p99 ${fmt(r.firstSync.p99 / 1000)} s, max ${fmt(r.firstSync.max / 1000)} s (max ÷ median ${fmt(r.firstSync.max / Math.max(1, r.firstSync.median))}; goal ≤ 2)`);
  for (const name of Object.keys(r.rss)) {
    const goal = name.startsWith("worker") ? ` (goals: ≤ 16 connections, < 250 MiB)` : "";
    console.log(`  ${name}: ${r.conns[name]} Redis connections (peak), peak RSS ${fmt(r.rss[name])} MiB${goal}`);
  }
  const ok = w.every((n) => r.conns[n] <= 16 && r.rss[n] < 250);
  console.log(`  workers within goals: ${ok ? "yes" : "NO"}`);
}

async function main(): Promise<void> {
  if (MODE !== "single") throw new Error(`BENCH_REDIS=${MODE}: only "single" is wired in (a cluster needs REDIS_CLUSTER_NODES support in src/store)`);
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectionName: "scim-bridge-bench", retryStrategy: (n) => (n > 5 ? null : 200) });
  redis.on("error", () => undefined);
  await redis.ping();
  const redisPorts = [Number(new URL(REDIS_URL).port || 6379)];
  console.log(`bench/scale — node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)} at start`);
  console.log(`${DIRS} directories × ${USERS} users and ${GROUPS} groups of ${MEMBERS} members, pushed over ${PUSH_CLIENTS} connections; workers: ${WORKER_COUNTS.join(", ")}`);
  const build = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  spawnSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "bench/scim/tsconfig.json"], { cwd: ROOT });
  const sim = await startSimProcess(set, {
    tenant: { name: "bench", useCreatorMode: true }, apiKeys: [{ name: "bridge", key: PLATFORM_KEY }], deployments: [{ id: 1, name: "production" }],
    admin: { header: "x-sim-token", token: SIM_TOKEN }, faults: { rateLimit: null },
  });
  const results: RunResult[] = [];
  for (const n of WORKER_COUNTS) {
    const r = await oneRun(sim, n, redisPorts);
    print(r);
    results.push(r);
  }
  if (results.length > 1) {
    const [a, b] = [results[0], results[results.length - 1]];
    console.log(`\nratio ${b.workers} ÷ ${a.workers} worker(s): time to match ${fmt(a.matchS / b.matchS)}× faster, push ${fmt(b.pushRps / a.pushRps)}×`);
  }
}

runBench(main, async () => {
  for (const p of pools) await p.close().catch(() => undefined);
  for (const c of children) await c.stop().catch(() => undefined);
  await set.killAll();
  if (redis) for (const p of prefixes) await deleteKeys(redis, p).catch(() => undefined);
  redis?.disconnect();
}, children);
