/**
 * `npm run bench:e2e` (not a test): the whole bridge end to end, as processes.
 *   - the platform simulator (`npm run simulator`, SIM_CONFIG temp file) with a rate limit of R calls/s;
 *   - the bridge as production runs it (built first, then `node <the image's flags> dist/main.js <role>`, config in
 *     SCIM_BRIDGE_CONFIG_JSON): one `server` and WORKERS `worker` processes (or one `all` process with
 *     BRIDGE=all), one workforce directory whose rate limit is R too;
 *   - this process pushes USER_COUNT users, GROUP_COUNT groups and MEMBERSHIP_COUNT memberships over SCIM (HTTP, CLIENTS
 *     concurrent connections), then waits until the platform holds all of it: the bridge's bookkeeping first
 *     (cheap to poll), then the SIMULATOR's own state, checked user by user and group member by member.
 * The minimum number of platform calls the workload needs is computed from the workload: one POST per
 * user, one POST per group, and ⌈members / memberBatchSize⌉ membership PATCHes per group (the push creates
 * groups empty and adds members by PATCH); the ideal time is that minimum divided by R.
 * Prints push time, calls made / minimum (goal ≤ 1.05), time to match (from the first SCIM request of the
 * push to the simulator holding everything) / ideal (goal ≤ 1.15), 429s (goal 0), the call rate achieved
 * over the sync window vs R, Redis memory of the bench's keys and worker RSS over time (target: flat); then
 * a no-drift full resync through the admin API (target < 5 s and 0 write calls). Everything lives under a private
 * Redis key prefix that is deleted at the end (SCAN + UNLINK of `<prefix>*`, `{<prefix>}*` and the queue shards'
 * `{<prefix>:q<n>}*` only).
 *
 * Env: USER_COUNT (10000), GROUP_COUNT (200), MEMBERSHIP_COUNT (50000), CLIENTS (32), RATE (500), CONCURRENCY (16, the
 * directory's reconciles at once), SHARD_CONCURRENCY (the workers' sync.shardConcurrency; unset: its default — one
 * directory's jobs all run on one shard, so a worker runs at most this many of them at once), WORKERS (1), BRIDGE ("split" | "all"), REDIS_URL, SYNC_TIMEOUT_S (360),
 * MEMBER_BATCH (100, the directory's platform.memberBatchSize), WORKER_NODE_ARGS (extra node arguments of the worker processes, e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile them; the profile is written when the bench stops them), HOLD_WORKERS ("1": the
 * worker processes are stopped (SIGSTOP) while the push runs and continued once it is over, so the sync window measures one
 * worker's own throughput against a full backlog, not the speed of the push; split mode only).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { Pool } from "undici";
import { startPrivateRedis, type PrivateRedis } from "../isolation/private-redis";
import { IMAGE_NODE_ARGS, IMAGE_WORKER_NODE_ARGS } from "../scim/children";
import { costProbe, lagProbe, type ProbeContext } from "./probes";
import { monitorRedis } from "./redis-monitor";

const USERS = Number(process.env.USER_COUNT ?? 10000);
const GROUPS = Number(process.env.GROUP_COUNT ?? 200);
const MEMBERSHIPS = Number(process.env.MEMBERSHIP_COUNT ?? 50000);
const CLIENTS = Number(process.env.CLIENTS ?? 32);
const RATE = Number(process.env.RATE ?? 500);
/** The directory's `concurrency`; unset: the config's default. */
const CONCURRENCY = process.env.CONCURRENCY ? Number(process.env.CONCURRENCY) : undefined;
const PROBE_USERS = Number(process.env.PROBE_USERS ?? 200);
const LAG_USERS = Number(process.env.LAG_USERS ?? 3000);
const LAG_RATE = Number(process.env.LAG_RATE ?? 300);
const LAG_LATENCY_MS = Number(process.env.LAG_LATENCY_MS ?? 20);
/** The workers' sync.shardConcurrency (unset: the config's default): one directory's jobs run on one shard. */
const SHARD_CONCURRENCY = Number(process.env.SHARD_CONCURRENCY ?? 0);
const WORKERS = Number(process.env.WORKERS ?? 1);
const BRIDGE = process.env.BRIDGE === "all" ? "all" : "split";
/** A Redis of the bench's own (a private redis-server, so MONITOR counts only the bridge) unless REDIS_URL names one. */
let REDIS_URL = process.env.REDIS_URL ?? "";
const SYNC_TIMEOUT_MS = Number(process.env.SYNC_TIMEOUT_S ?? 360) * 1000;
const MEMBERS_PER_PATCH = 50;
const MEMBER_BATCH = Number(process.env.MEMBER_BATCH ?? 100);
const WORKER_NODE_ARGS = (process.env.WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean);
const HOLD_WORKERS = process.env.HOLD_WORKERS === "1" && process.env.BRIDGE !== "all";

const ROOT = path.resolve(__dirname, "../..");
const DIR = "bench";
const PREFIX = `bench-e2e-${randomUUID().slice(0, 8)}`;
const P = `${PREFIX}:{${DIR}}:`;
const SCIM_TOKEN = randomBytes(24).toString("base64url");
const ADMIN_TOKEN = randomBytes(24).toString("base64url");
const PLATFORM_KEY = randomBytes(24).toString("base64url");
const SIM_TOKEN = randomBytes(12).toString("base64url");
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Spawns a child in its own process group (so it and its own children stop together). */
function start(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr!.on("data", (d: Buffer) => process.stderr.write(`[${name}] ${d.toString()}`));
  child.on("exit", (code, signal) => { if (!stopping) console.error(`[${name}] exited early (${code ?? signal})`); });
  children.push(child);
  return child;
}

let stopping = false;
async function stopChildren(): Promise<void> {
  stopping = true;
  for (const c of children) if (c.exitCode === null && c.pid) try { process.kill(-c.pid, "SIGTERM"); process.kill(-c.pid, "SIGCONT"); } catch { /* gone */ }
  const deadline = Date.now() + 10000;
  while (children.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) await sleep(100);
  for (const c of children) if (c.exitCode === null && c.signalCode === null && c.pid) try { process.kill(-c.pid, "SIGKILL"); } catch { /* gone */ }
}

/** VmRSS of a process and its descendants, in bytes (Linux /proc). */
function rssTree(pid: number): number {
  let total = 0;
  const kids = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(entry)]);
    } catch { /* exited */ }
  }
  const walk = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/status`, "utf8"));
      if (m) total += Number(m[1]) * 1024;
    } catch { /* exited */ }
    for (const k of kids.get(p) ?? []) walk(k);
  };
  walk(pid);
  return total;
}

/** CPU seconds (user + system) used so far by a process and its descendants (Linux /proc, 100 ticks/s). */
function cpuTree(pid: number): number {
  let ticks = 0;
  const kids = new Map<number, number[]>();
  const stats = new Map<number, string[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      stats.set(Number(entry), fields);
      const ppid = Number(fields[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(entry)]);
    } catch { /* exited */ }
  }
  const walk = (p: number) => {
    const f = stats.get(p);
    if (f) ticks += Number(f[11]) + Number(f[12]);
    for (const k of kids.get(p) ?? []) walk(k);
  };
  walk(pid);
  return ticks / 100;
}

/** Every key of the bench: the directory's, and the queue shards' (`{<prefix>:q<n>}`). */
const KEY_PATTERNS = [`${PREFIX}*`, `{${PREFIX}}*`, `{${PREFIX}:*`];

async function scanKeys(redis: Redis, pattern: string, each: (keys: string[]) => Promise<void>): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    if (keys.length) await each(keys);
  } while (cursor !== "0");
}

/** Bytes Redis reports (MEMORY USAGE) for every key of the bench, and how many keys. */
async function prefixMemory(redis: Redis): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let keys = 0;
  for (const pattern of KEY_PATTERNS) {
    await scanKeys(redis, pattern, async (batch) => {
      const pipe = redis.pipeline();
      for (const k of batch) pipe.memory("USAGE", k, "SAMPLES", "0");
      for (const [, v] of (await pipe.exec()) ?? []) bytes += Number(v ?? 0);
      keys += batch.length;
    });
  }
  return { bytes, keys };
}

async function cleanRedis(redis: Redis): Promise<number> {
  let n = 0;
  for (const pattern of KEY_PATTERNS) {
    await scanKeys(redis, pattern, async (keys) => { n += keys.length; await redis.unlink(...keys); });
  }
  return n;
}

/** CPU seconds the Redis server used so far (INFO cpu) and the commands it processed (INFO stats): every client of it counts. */
async function redisWork(redis: Redis): Promise<{ cpu: number; commands: number }> {
  const cpu = await redis.info("cpu");
  const stats = await redis.info("stats");
  const num = (text: string, field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(text)?.[1] ?? 0);
  return { cpu: num(cpu, "used_cpu_user") + num(cpu, "used_cpu_sys"), commands: num(stats, "total_commands_processed") };
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info("memory"))![1]);
}

/** Runs `tasks` on `clients` concurrent loops. */
async function runPool<T>(items: T[], clients: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

interface SimCounters { total: { reads: number; writes: number }; endpoints: Record<string, { reads: number; writes: number }>; faults: Record<string, number> }

let privateRedis: PrivateRedis | undefined;

async function main(): Promise<void> {
  console.log(`bench:e2e — node ${process.version}, ${os.cpus().length} CPUs; ${USERS} users, ${GROUPS} groups, ${MEMBERSHIPS} memberships; ` +
    `${CLIENTS} SCIM clients; R = ${RATE} calls/s; bridge ${BRIDGE === "all" ? "1 × all" : `1 × server + ${WORKERS} × worker`}, directory concurrency ${CONCURRENCY ?? "default"}`);
  privateRedis = REDIS_URL ? undefined : await startPrivateRedis();
  if (privateRedis) REDIS_URL = privateRedis.url;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  await redis.ping();
  const memBefore = await usedMemory(redis);

  // --- simulator (npm run simulator, SIM_CONFIG temp file) ---
  const simConfigFile = path.join(os.tmpdir(), `bench-e2e-sim-${PREFIX}.json`);
  fs.writeFileSync(simConfigFile, JSON.stringify({
    tenant: { name: "bench-account" },
    apiKeys: [{ name: "bridge", key: PLATFORM_KEY }],
    deployments: [{ id: 1, name: "bench" }],
    admin: { header: "x-sim-token", token: SIM_TOKEN },
    faults: { rateLimit: { max: RATE, durationMs: 1000 } },
  }));
  const sim = start("simulator", "npm", ["run", "--silent", "simulator"], { SIM_PORT: "0", SIM_CONFIG: simConfigFile });
  const simBase = await new Promise<string>((resolve, reject) => {
    let out = "";
    sim.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /base_url (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    sim.once("exit", () => reject(new Error(`simulator did not start: ${out}`)));
  });
  const simUrl = simBase.replace(/\/api$/, "");
  const simGet = async <T>(p: string): Promise<T> => (await (await fetch(`${simUrl}${p}`, { headers: { "x-sim-token": SIM_TOKEN } })).json()) as T;
  const simPost = (p: string) => fetch(`${simUrl}${p}`, { method: "POST", headers: { "x-sim-token": SIM_TOKEN } });

  // --- bridge processes ---
  const port = await freePort();
  const bridgeUrl = `http://127.0.0.1:${port}`;
  const config = {
    server: { host: "127.0.0.1", port, publicBaseUrl: bridgeUrl },
    redis: { url: REDIS_URL, keyPrefix: PREFIX },
    log: { level: "warn" },
    admin: { tokenHashes: [sha256(ADMIN_TOKEN)] },
    sync: { sweepIntervalMs: 5000, ...(SHARD_CONCURRENCY ? { shardConcurrency: SHARD_CONCURRENCY } : {}) },
    directories: [{
      id: DIR, tokenHashes: [sha256(SCIM_TOKEN)], target: "workforce",
      platform: { baseUrl: simBase, deploymentId: 1, apiKeyEnv: "BENCH_PLATFORM_KEY", memberBatchSize: MEMBER_BATCH },
      rateLimit: { max: RATE, durationMs: 1000 }, ...(CONCURRENCY ? { concurrency: CONCURRENCY } : {}),
    }],
  };
  const bridgeEnv = { SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config), BENCH_PLATFORM_KEY: PLATFORM_KEY, NODE_ENV: "production" };
  const roles = BRIDGE === "all" ? ["all"] : ["server", ...Array.from({ length: WORKERS }, () => "worker")];
  // the production entry point (docker/entrypoint.sh): built JavaScript with the image's node flags, not the
  // sources through tsx, whose loader hooks the measured processes would otherwise carry
  const build = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, stdio: "inherit" });
  if (build.status !== 0) throw new Error("npm run build failed");
  const main = path.join(ROOT, "dist/main.js");
  const bridge = roles.map((role, i) => ({ role: `${role}${role === "worker" && WORKERS > 1 ? i : ""}`, proc: start(role, process.execPath, [...(role === "worker" ? IMAGE_WORKER_NODE_ARGS : IMAGE_NODE_ARGS), ...(role === "server" ? [] : WORKER_NODE_ARGS), main, role], bridgeEnv) }));
  const workerProcs = bridge.filter((b) => b.role !== "server");
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${bridgeUrl}/healthz`)).ok) break; } catch { /* not yet */ }
    if (i > 300) throw new Error("bridge server did not answer /healthz");
    await sleep(100);
  }
  await sleep(1500); // workers: queues created, key verified

  const pool = new Pool(bridgeUrl, { connections: CLIENTS, pipelining: 1, keepAliveTimeout: 30000 });
  const headers = { authorization: `Bearer ${SCIM_TOKEN}`, "content-type": "application/scim+json" };
  let pushErrors = 0;
  const scim = async (method: "POST" | "PATCH", p: string, body: unknown): Promise<Record<string, unknown> | undefined> => {
    const res = await pool.request({ method, path: `/scim/v2/${DIR}${p}`, headers, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode >= 300) {
      if (pushErrors++ < 5) console.error(`${method} ${p} → ${res.statusCode} ${text.slice(0, 200)}`);
      return undefined;
    }
    return text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  };

  // --- probes: Redis work per user, SCIM 201 → platform lag ---
  const probe: ProbeContext = {
    scim,
    simUsers: async () => (await simGet<{ users: number }>("/_sim/counts")).users,
    simCreated: async () => new Map((await simGet<{ scim: { users: Array<{ userName: string; meta: { created: string } }> } }>("/_sim/state")).scim.users
      .map((u) => [u.userName, Date.parse(u.meta.created)])),
    simLatency: async (ms) => {
      const res = await fetch(`${simUrl}/_sim/faults`, { method: "PUT", headers: { "x-sim-token": SIM_TOKEN, "content-type": "application/json" },
        body: JSON.stringify({ latency: { fixedMs: ms }, rateLimit: { max: RATE, durationMs: 1000 } }) });
      if (!res.ok) throw new Error(`PUT /_sim/faults answered ${res.status}`);
    },
  };
  if (PROBE_USERS > 0) {
    if (!privateRedis) console.log("\nRedis work per user: skipped (REDIS_URL is set: MONITOR counts only on the bench's private Redis)");
    else {
      const own = redis.stream as net.Socket;
      const benchClients = new Set([`${own.localAddress}:${own.localPort}`]);
      const monitor = await monitorRedis(REDIS_URL, ROOT, () => benchClients);
      await costProbe(probe, monitor, PROBE_USERS, Math.min(CLIENTS, 8));
      await monitor.stop();
    }
  }
  if (LAG_USERS > 0) await lagProbe(probe, LAG_USERS, LAG_RATE, LAG_LATENCY_MS, String(CONCURRENCY ?? "default"));
  await simPost("/_sim/counters/reset");
  const signalWorkers = (signal: NodeJS.Signals) => { for (const w of workerProcs) process.kill(-w.proc.pid!, signal); };
  if (HOLD_WORKERS) signalWorkers("SIGSTOP");

  // --- sampler: RSS, sync progress and calls per second (the directory's shared limiter window) ---
  const samples: Array<{ t: number; rss: number[]; cpu: number[]; users: number; groups: number; members: number; callsLastSecond: number }> = [];
  const watched = [...bridge, { role: "sim", proc: sim }];
  const t0 = Date.now();
  const workerCpu0 = workerProcs.reduce((n, w) => n + cpuTree(w.proc.pid!), 0);
  const redis0 = await redisWork(redis);
  const groupIds: string[] = [];
  const appliedMembers = async () => {
    if (!groupIds.length) return 0;
    const pipe = redis.pipeline();
    for (const g of groupIds) pipe.scard(`${P}s:gm:${g}`);
    return ((await pipe.exec()) ?? []).reduce((n, [, v]) => n + Number(v ?? 0), 0);
  };
  const syncedCounts = async () => {
    const synced = await redis.scard(`${P}s:st:synced`);
    const groupsSynced = groupIds.length ? (await redis.pipeline(groupIds.map((g) => ["hget", `${P}s:g:${g}`, "st"])).exec())!.filter(([, v]) => v === "synced").length : 0;
    return { users: synced - groupsSynced, groups: groupsSynced };
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = Date.now();
      const { users, groups } = await syncedCounts();
      samples.push({
        t: now - t0, rss: workerProcs.map((w) => rssTree(w.proc.pid!)), cpu: watched.map((w) => cpuTree(w.proc.pid!)), users, groups, members: await appliedMembers(),
        callsLastSecond: await redis.zcount(`${P}s:rate`, now - 1000, now),
      });
      await sleep(1000);
    }
  })();

  // --- push over SCIM ---
  const userIds: string[] = new Array(USERS);
  const pushStart = Date.now();
  await runPool([...Array(USERS).keys()], CLIENTS, async (i) => {
    const u = await scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `user${i}@bench.example`, displayName: `Bench User ${i}`,
      name: { givenName: "Bench", familyName: `User ${i}` }, emails: [{ value: `user${i}@bench.example`, type: "work", primary: true }], active: true,
    });
    userIds[i] = String(u?.id);
  });
  const usersPushed = Date.now();
  await runPool([...Array(GROUPS).keys()], CLIENTS, async (g) => {
    const res = await scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `Bench Group ${g}`, members: [] });
    groupIds[g] = String(res?.id);
  });
  // memberships: group g holds `per` distinct users, spread so that every user is in about MEMBERSHIPS / USERS groups
  const per = Math.floor(MEMBERSHIPS / GROUPS);
  const stride = Math.max(1, Math.floor(USERS / per));
  const patches: Array<{ g: number; members: string[] }> = [];
  /** Per group, the userNames the platform must hold as its members. */
  const expected: Array<Set<string>> = [];
  for (let g = 0; g < GROUPS; g++) {
    const members = Array.from({ length: per }, (_, j) => userIds[(g * 7 + j * stride) % USERS]);
    expected[g] = new Set(Array.from({ length: per }, (_, j) => `user${(g * 7 + j * stride) % USERS}@bench.example`));
    for (let k = 0; k < members.length; k += MEMBERS_PER_PATCH) patches.push({ g, members: members.slice(k, k + MEMBERS_PER_PATCH) });
  }
  await runPool(patches, CLIENTS, async ({ g, members }) => {
    await scim("PATCH", `/Groups/${groupIds[g]}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "add", path: "members", value: members.map((value) => ({ value })) }],
    });
  });
  const pushEnd = Date.now();
  if (HOLD_WORKERS) signalWorkers("SIGCONT");
  const pushRequests = USERS + GROUPS + patches.length;
  console.log(`\npush: ${pushRequests} SCIM requests in ${secs(pushEnd - pushStart)} (${(pushRequests / ((pushEnd - pushStart) / 1000)).toFixed(0)} req/s; users ${secs(usersPushed - pushStart)}), ${pushErrors} errors`);

  // --- wait until the platform side holds everything ---
  /** "" when the simulator holds every user (active, by userName) and every group with exactly its members; else what differs. */
  const simMismatch = async (): Promise<string> => {
    const s = await simGet<{ scim: { users: Array<{ id: string; userName: string; active?: boolean }>; groups: Array<{ displayName: string; members: Array<{ value: string }> }> } }>("/_sim/state");
    const nameOf = new Map(s.scim.users.map((u) => [u.id, u.userName.toLowerCase()]));
    const active = s.scim.users.filter((u) => u.active !== false && /^user\d+@bench\.example$/.test(u.userName)).length;
    if (active !== USERS) return `${active}/${USERS} users on the platform`;
    const byName = new Map(s.scim.groups.map((g) => [g.displayName, g]));
    for (let g = 0; g < GROUPS; g++) {
      const pg = byName.get(`Bench Group ${g}`);
      if (!pg) return `group ${g} missing on the platform`;
      const have = new Set(pg.members.map((m) => nameOf.get(m.value)));
      if (have.size !== expected[g].size || [...expected[g]].some((n) => !have.has(n))) return `group ${g} holds ${have.size}/${expected[g].size} of its members`;
    }
    if (s.scim.groups.length !== GROUPS) return `${s.scim.groups.length} groups on the platform, ${GROUPS} expected`;
    return "";
  };
  let mismatch = "?";
  let lastLog = 0;
  for (;;) {
    const { users, groups } = await syncedCounts();
    const members = await appliedMembers();
    // nothing left in the outbox, and nothing waiting for, holding or waiting out a retry in the directory's
    // admission (src/store/queue-keys.ts): every job of the shard queue passes through it
    const idle = (await redis.xlen(`${P}outbox`)) === 0
      && Object.values(await redis.pipeline([["zcard", `${P}q:backlog`], ["zcard", `${P}q:inflight`], ["zcard", `${P}q:retrying`]]).exec().then((r) => r!.map(([, v]) => Number(v)))).every((n) => n === 0);
    // the bridge says it is done: believe only the simulator
    if (users >= USERS && groups >= GROUPS && members >= per * GROUPS && idle && (mismatch = await simMismatch()) === "") break;
    if (Date.now() - lastLog > 10000) {
      lastLog = Date.now();
      const s = samples[samples.length - 1];
      console.log(`  t=${secs(Date.now() - pushStart).padStart(7)}  users ${users}/${USERS}  groups ${groups}/${GROUPS}  memberships ${members}/${per * GROUPS}  calls/s ${s?.callsLastSecond ?? 0}  worker RSS ${s ? s.rss.map(mib).join(" + ") : "?"}`);
    }
    if (Date.now() - pushStart > SYNC_TIMEOUT_MS) throw new Error(`not synced after ${secs(SYNC_TIMEOUT_MS)}: users ${users}, groups ${groups}, memberships ${members}; simulator: ${mismatch}`);
    await sleep(250);
  }
  const syncedAt = Date.now();
  const workerCpu = workerProcs.reduce((n, w) => n + cpuTree(w.proc.pid!), 0) - workerCpu0;
  const redis1 = await redisWork(redis);
  const memSynced = await usedMemory(redis);
  const counters = (await simGet<{ counters: SimCounters }>("/_sim/state")).counters;
  const state = await simGet<{ scim: { users: unknown[]; groups: Array<{ members: unknown[] }> } }>("/_sim/state");
  const platformMembers = state.scim.groups.reduce((n, g) => n + g.members.length, 0);
  const calls = counters.total.reads + counters.total.writes;
  // the sync window: from the first platform call the push caused to the moment everything was synced
  const firstCall = samples.find((s) => s.callsLastSecond > 0)?.t ?? pushStart - t0;
  const windowMs = syncedAt - t0 - Math.max(0, firstCall - 1000);
  const achieved = calls / (windowMs / 1000);
  const busy = samples.filter((s) => s.callsLastSecond > 0 && s.t <= syncedAt - t0).map((s) => s.callsLastSecond).sort((a, b) => a - b);
  const median = busy.length ? busy[Math.floor(busy.length / 2)] : 0;

  // the minimum: one create per user and per group, and each group's members in full batches of memberBatchSize
  const minCalls = USERS + GROUPS + GROUPS * Math.ceil(per / MEMBER_BATCH);
  const idealMs = (minCalls / RATE) * 1000;
  const matchMs = syncedAt - pushStart;
  const limited = counters.faults.rateLimited ?? 0;
  const ok = (b: boolean) => (b ? "✓" : "✗");
  console.log(`\nthe simulator matches the IdP ${secs(matchMs)} after the push started (${secs(syncedAt - pushEnd)} after it ended)`);
  console.log(`platform holds ${state.scim.users.length} users, ${state.scim.groups.length} groups, ${platformMembers} memberships (checked member by member)`);
  console.log(`minimum calls: ${minCalls} = ${USERS} user POSTs + ${GROUPS} group POSTs + ${GROUPS} groups × ⌈${per} members / memberBatchSize ${MEMBER_BATCH}⌉ PATCHes; ideal time at R=${RATE}/s: ${secs(idealMs)}`);
  console.log(`calls made / minimum: ${calls} / ${minCalls} = ${(calls / minCalls).toFixed(3)} ${ok(calls <= 1.05 * minCalls)} (goal ≤ 1.05)`);
  console.log(`time to match / ideal: ${secs(matchMs)} / ${secs(idealMs)} = ${(matchMs / idealMs).toFixed(3)} ${ok(matchMs <= 1.15 * idealMs)} (goal ≤ 1.15)`);
  console.log(`429s: ${limited} ${ok(limited === 0)} (goal 0)`);
  console.log(`platform calls: ${calls} (${counters.total.reads} reads, ${counters.total.writes} writes) over a ${secs(windowMs)} sync window`);
  console.log(`achieved rate: ${achieved.toFixed(0)} calls/s = ${((achieved / RATE) * 100).toFixed(1)}% of R=${RATE}/s ${achieved >= 0.9 * RATE ? "(≥ 90% ✓)" : "(< 90% ✗)"}; median of busy seconds ${median}/s`);
  if (HOLD_WORKERS) console.log(`worker throughput (workers held during the push): ${calls} calls in ${secs(syncedAt - pushEnd)} from their release to the match = ${(calls / ((syncedAt - pushEnd) / 1000)).toFixed(0)} calls/s`);
  console.log(`other faults: ${JSON.stringify({ ...counters.faults, rateLimited: undefined })}`);
  console.log(`worker CPU from the push's start to the match: ${workerCpu.toFixed(1)} s = ${((workerCpu * 1000) / calls).toFixed(2)} ms per platform call; ` +
    `Redis server: ${(((redis1.cpu - redis0.cpu) * 1000) / calls).toFixed(2)} ms CPU and ${((redis1.commands - redis0.commands) / calls).toFixed(1)} commands per platform call ` +
    `(every client of this Redis counts: the SCIM server's writes, the bench's polling, anyone else's)`);
  const timeline = samples.filter((x) => x.t <= syncedAt - t0 + 1000);
  const pushEndIndex = timeline.findIndex((x) => x.t >= pushEnd - t0);
  console.log(`calls/s, one figure per second from the push's start ("|": push ended): ` +
    timeline.map((x, i) => `${i === pushEndIndex ? "| " : ""}${x.callsLastSecond}`).join(" "));
  const top = Object.entries(counters.endpoints).sort((a, b) => (b[1].reads + b[1].writes) - (a[1].reads + a[1].writes)).slice(0, 6);
  console.log(`calls by endpoint: ${top.map(([k, v]) => `${k} ${v.reads + v.writes}`).join(", ")}`);

  const pm = await prefixMemory(redis);
  console.log(`\nRedis: used_memory ${mib(memBefore)} before → ${mib(memSynced)} synced (Δ ${mib(memSynced - memBefore)}); ` +
    `the bench's ${pm.keys} keys hold ${mib(pm.bytes)} (MEMORY USAGE), ${(pm.bytes / USERS / 1024).toFixed(2)} KiB per user`);
  console.log(`over time (every ~5 s; CPU % of one core over the last 5 s for ${watched.map((w) => w.role).join(" / ")}):`);
  const shown = samples.filter((_, i) => i % 5 === 0 || i === samples.length - 1);
  shown.forEach((s, i) => {
    const prev = shown[i - 1];
    const cpu = prev ? s.cpu.map((c, j) => `${Math.round(((c - prev.cpu[j]) / ((s.t - prev.t) / 1000)) * 100)}%`).join(" / ") : "-";
    console.log(`  t=${secs(s.t).padStart(7)}  worker RSS ${s.rss.map(mib).join(" + ").padStart(10)}  users ${String(s.users).padStart(5)}  groups ${String(s.groups).padStart(3)}  ` +
      `memberships ${String(s.members).padStart(5)}  calls/s ${String(s.callsLastSecond).padStart(3)}  CPU ${cpu}`);
  });
  const during = samples.filter((s) => s.t >= pushEnd - t0 && s.t <= syncedAt - t0).map((s) => s.rss.reduce((a, b) => a + b, 0));
  if (during.length > 1) {
    const half = Math.floor(during.length / 2);
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`worker RSS after the push: min ${mib(Math.min(...during))}, max ${mib(Math.max(...during))}; first half avg ${mib(avg(during.slice(0, half)))}, second half avg ${mib(avg(during.slice(half)))}`);
  }

  // --- no-drift resync through the admin API ---
  await simPost("/_sim/counters/reset");
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const before = (await (await fetch(`${bridgeUrl}/admin/directories/${DIR}/resync`, { headers: admin })).json()) as { id?: string };
  const resyncStart = Date.now();
  const post = await fetch(`${bridgeUrl}/admin/directories/${DIR}/resync`, { method: "POST", headers: admin });
  if (post.status !== 202) throw new Error(`resync request answered ${post.status}`);
  let progress: Record<string, unknown>;
  /** When the resync was first seen past its listing phase (plan computed, reconciles queued). */
  let listedAt = 0;
  for (;;) {
    progress = (await (await fetch(`${bridgeUrl}/admin/directories/${DIR}/resync`, { headers: admin })).json()) as Record<string, unknown>;
    if (!listedAt && progress.id && progress.id !== before.id && progress.phase !== "listing") listedAt = Date.now();
    if (progress.id && progress.id !== before.id && progress.status === "done") break;
    if (Date.now() - resyncStart > 120000) throw new Error(`resync not done after 120 s: ${JSON.stringify(progress)}`);
    await sleep(100);
  }
  const resyncMs = Date.now() - resyncStart;
  const rc = (await simGet<{ counters: SimCounters }>("/_sim/state")).counters;
  console.log(`\nno-drift resync: ${secs(resyncMs)} ${resyncMs < 5000 ? "(< 5 s ✓)" : "(≥ 5 s ✗)"}; platform writes ${rc.total.writes} ${rc.total.writes === 0 ? "✓" : "✗"}, reads ${rc.total.reads}; ` +
    `listing and plan ${secs(listedAt - resyncStart)}, reconciles ${secs(resyncStart + resyncMs - listedAt)}; ` +
    `summary: total ${progress.total}, unchanged ${progress.unchanged}, created ${progress.created}, updated ${progress.updated}, deactivated ${progress.deactivated}, deleted ${progress.deleted}, failed ${progress.failed}`);
  console.log(`worker RSS after the resync: ${workerProcs.map((w) => mib(rssTree(w.proc.pid!))).join(" + ")}`);

  sampling = false;
  await sampler;
  await pool.close();
  await stopChildren();
  fs.rmSync(simConfigFile, { force: true });
  console.log(`\ncleaned ${await cleanRedis(redis)} Redis keys under ${PREFIX}, {${PREFIX}} and {${PREFIX}:q<n>}`);
  redis.disconnect();
  await privateRedis?.stop();
}

main().catch(async (err: Error) => {
  console.error(`bench:e2e failed: ${err.message}`);
  await stopChildren();
  const redis = new Redis(REDIS_URL);
  await cleanRedis(redis).catch(() => 0);
  redis.disconnect();
  await privateRedis?.stop();
  process.exit(1);
});
