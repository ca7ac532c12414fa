/**
 * bench/scale — many directories on few connections.
 *
 * BENCH_DIRS (1,000) workforce directories, each pushed BENCH_USERS (100) users and BENCH_GROUPS (10) groups
 * of BENCH_MEMBERS (10) members over SCIM, all directories at once (BENCH_PUSH_CLIENTS (64) connections,
 * the requests interleaved across directories), into one bridge `server` process, synced by BENCH_WORKERS
 * ("1,3": one run per count) `worker` processes into the platform simulator (its own process, no faults,
 * no rate limit). The bridge runs compiled (`dist/main.js`, built first), one config file for all. The
 * push starts once every worker is ready (/readyz) and after an untimed warm-up: BENCH_WARMUP_USERS (256)
 * users of a directory of their own (`warmup`, not counted) pushed and synced, so no timed directory waits
 * for the processes' request paths to compile.
 *
 * Per run it prints: before the push, BENCH_IDLE_SECONDS (10) with every directory registered and nothing
 * to do (the CPU of each process and of the masters, and the commands the masters ran: the periodic chores'
 * cost, which grows with the number of directories); then push req/s; the time from the first push until
 * the simulator holds every user, group and membership; Redis connections (TCP connections to the Redis
 * port(s), read from /proc), peak RSS and CPU seconds of every process, with its read and write system
 * calls (/proc/<pid>/io: on a cluster a tick's commands go out in one write per node, not one write in
 * all); the Redis masters' commands (INFO commandstats: calls, and seconds by the clock of each node, so a
 * node waiting for a core counts too); and each directory's wait for its first sync (its first push → the
 * creation time the simulator stamped on its earliest user, so neither a polling interval nor a poller's
 * load is in it): median, p99, max and max ÷ median, with the slowest directories' shards. Beside it, the
 * sync's part alone: the same wait from the bridge accepting that write (the `meta.created` it stamped on
 * it), without the request's time in the server's queue (64 requests in flight) or this process's lag in
 * seeing the answer (the simulator had often created the user before this process saw it). The workers'
 * reconcile attempts by kind and outcome and platform calls by status (their /metrics) tell a retried
 * attempt, a second's wait (sync.backoffMs), or a reconcile run for nothing, from queueing. Then the ratios
 * of the runs: cluster ÷ single Redis (per worker count, run side by side) and 3 workers ÷ 1 worker (per
 * Redis). With BENCH_ROUNDS (1) > 1 the whole set runs that many times, the Redis targets' order
 * alternating by round, and the ratios printed are the median of the rounds' (each round's listed), as is
 * the fairness ratio: on two shared cores one run's figures moved by up to 15% from one run to the next.
 * Goals: ≤ 16 connections and < 250 MiB RSS per worker; cluster throughput ≥ 0.9× single Redis; no
 * directory waits more than 2× the median.
 *
 * Knobs for experiments: BENCH_SHARDS (4) and BENCH_SHARD_CONCURRENCY (16), the workers' `sync.queueShards`
 * and `sync.shardConcurrency`; BENCH_WORKER_NODE_ARGS, the workers' node flags (default the image's,
 * docker/entrypoint.sh: `--max-semi-space-size=16 --heap-growing-percent=50`); BENCH_SERVER_NODE_ARGS, node flags added to
 * the server's (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof-server`); BENCH_CHILD_LOG_DIR, a directory each
 * child process's output is written to (`<name>.log`), with BENCH_LOG_LEVEL their log level (default warn);
 * BENCH_TOP_COMMANDS (8), how many of the masters' commands each run lists (0: all).
 *
 * BENCH_REDIS ("single,cluster"): `single` uses REDIS_URL; `cluster` starts a local Redis Cluster of 3
 * masters (test/helpers/redis-cluster.ts, the cluster test project's helper) and points the bridge at it
 * with `redis.clusterNodes`. No replicas by default, as the single Redis has none: on this machine a
 * replica shares the two cores with the bridge (80–88 s of CPU in a full-size run, which a production
 * cluster's replicas spend on hosts of their own), so the ratio would weigh replication, not the cluster;
 * BENCH_CLUSTER_REPLICAS=1 adds one replica per master. BENCH_CLUSTER_MASTERS=1 runs the cluster on one master
 * that holds every slot (no replicas): the bridge in cluster mode (ioredis Cluster, one command per slot,
 * the outbox signal) with all Redis work in one process, as on the single Redis. Between it and 3 masters
 * the bridge's commands are the same, so the cost of the cluster splits into what cluster mode costs the
 * bridge and what three Redis processes cost on this machine. Each run also prints the CPU time every Redis
 * process spent during it (INFO cpu), masters and replicas apart. Each run has a simulator of its own (no
 * state of an earlier run).
 * Keys under `bench-scale-<uuid>` (and its queue shards `{bench-scale-<uuid>:q<n>}`), deleted at the end
 * of each single-Redis run, also on Ctrl-C; the cluster is emptied after each run and stopped at the end. Run: `npm run bench:scale`
 * (e.g. `BENCH_USERS=20 BENCH_GROUPS=2 BENCH_REDIS=single BENCH_WORKERS=1 npm run bench:scale`).
 */
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Cluster, Redis } from "ioredis";
import type { Pool } from "undici";
import { hashToken } from "../../src/auth/token";
import { shardOf } from "../../src/sync/jobs";
import { startRedisCluster, type LocalCluster } from "../../test/helpers/redis-cluster";
import type { SimCounts } from "../../src/simulator/state";
import { ProcessSet, startSimProcess, type SimProcess } from "../../test/helpers/processes";
import { cpuMs, freePort, ioCalls, IMAGE_NODE_ARGS, IMAGE_WORKER_NODE_ARGS, rssMiB, startChild, type ServerChild } from "../scim/children";
import { deleteKeys, envNumber, runBench } from "../scim/harness";
import { makePool } from "../scim/load";
import { fmt, median } from "../scim/report";

const ROOT = path.resolve(__dirname, "../..");
const CHILD_JS = path.join(ROOT, "node_modules/.cache/scim-bridge-bench");
const DIRS = envNumber("BENCH_DIRS", 1000);
const USERS = envNumber("BENCH_USERS", 100);
const GROUPS = envNumber("BENCH_GROUPS", 10);
const MEMBERS = Math.min(envNumber("BENCH_MEMBERS", 10), USERS);
const PUSH_CLIENTS = envNumber("BENCH_PUSH_CLIENTS", 64);
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? "1,3").split(",").map(Number).filter((n) => n > 0);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MODES = (process.env.BENCH_REDIS ?? "single,cluster").split(",").map((m) => m.trim()).filter(Boolean);
const SHARDS = envNumber("BENCH_SHARDS", 4);
const SHARD_CONCURRENCY = envNumber("BENCH_SHARD_CONCURRENCY", 16);
const CLUSTER_REPLICAS = envNumber("BENCH_CLUSTER_REPLICAS", 0);
const CLUSTER_MASTERS = envNumber("BENCH_CLUSTER_MASTERS", 3);
/** How a cluster run is named when it is not the usual 3 masters. */
const CLUSTER_NOTE = CLUSTER_MASTERS !== 3 ? ` (${CLUSTER_MASTERS} master)` : "";
/** Rounds of the whole set of runs (order of the Redis targets alternating by round); ratios are the median of the rounds'. */
const ROUNDS = envNumber("BENCH_ROUNDS", 1);
/** How often RSS and Redis connections are sampled (ms). */
const SAMPLE_MS = envNumber("BENCH_SAMPLE_MS", 100);
/** Users pushed to a directory of their own and synced before the timed push (0: no warm-up). */
const WARMUP_USERS = envNumber("BENCH_WARMUP_USERS", 256);
/** Seconds measured idle before the push (every directory registered, nothing to do); 0: none. */
const IDLE_SECONDS = envNumber("BENCH_IDLE_SECONDS", 10);
/** When set, each run writes every directory's first push, the server's answer to it and its first sync (ms after the push began) there as CSV (`<file>.<redis>-<workers>[-r<round>].csv`). */
const WAITS_FILE = process.env.BENCH_WAITS_FILE;
/** How many of the masters' commands (most time first) each run lists; 0: all of them. */
const TOP_COMMANDS = envNumber("BENCH_TOP_COMMANDS", 8);
/** The image's node flags: the server's (IMAGE_NODE_ARGS) and the workers' (IMAGE_WORKER_NODE_ARGS, unless BENCH_WORKER_NODE_ARGS says otherwise). */
const WORKER_NODE_ARGS = process.env.BENCH_WORKER_NODE_ARGS !== undefined ? process.env.BENCH_WORKER_NODE_ARGS.split(" ").filter(Boolean) : IMAGE_WORKER_NODE_ARGS;
/** Extra node flags of the server after the image's (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"). */
const SERVER_NODE_ARGS = [...IMAGE_NODE_ARGS, ...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean)];
const PLATFORM_KEY = `bench-scale-key-${randomBytes(6).toString("hex")}`;
const SIM_TOKEN = "bench-sim-token";

const set = new ProcessSet();
const children: ServerChild[] = [];
const pools: Pool[] = [];
const prefixes: string[] = [];
let redis: Redis | undefined;
let clusterClient: Cluster | undefined;

/** Where a run's Redis is: the bridge's `redis` config, the bench's own client and the ports to count. */
interface Target {
  mode: string;
  client: Redis | Cluster;
  ports: number[];
  redisConfig(prefix: string): Record<string, unknown>;
  /** Every Redis process of the target: its role and the CPU it has used so far. */
  redisNodes(): Promise<RedisNode[]>;
}

interface RedisCpu { masters: number; replicas: number; /** Each master's own CPU seconds, by port. */ byMaster: Array<{ port: number; s: number }> }

interface RedisNode {
  port: number;
  role: "master" | "replica";
  cpu: number;
  /** INFO commandstats so far: calls and microseconds per command (scripts' inner commands counted too). */
  commands: Map<string, { calls: number; usec: number }>;
}

/** Each Redis at these ports: its role and the CPU seconds (user + system) it has used so far (INFO). */
async function redisNodesOf(ports: number[]): Promise<RedisNode[]> {
  const out: RedisNode[] = [];
  for (const port of ports) {
    const r = new Redis(port, "127.0.0.1", { maxRetriesPerRequest: 1, lazyConnect: true });
    r.on("error", () => undefined);
    try {
      await r.connect();
      const info = `${await r.info("cpu")}\n${await r.info("replication")}`;
      const num = (k: string) => Number(new RegExp(`^${k}:([0-9.]+)`, "m").exec(info)?.[1] ?? 0);
      const commands = new Map<string, { calls: number; usec: number }>();
      for (const m of (await r.info("commandstats")).matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) commands.set(m[1], { calls: Number(m[2]), usec: Number(m[3]) });
      out.push({ port, role: /^role:slave/m.test(info) ? "replica" : "master", cpu: num("used_cpu_user") + num("used_cpu_sys"), commands });
    } finally {
      r.disconnect();
    }
  }
  return out;
}

/** What the processes and the Redis masters spend while every directory is registered and nothing happens. */
interface Idle {
  seconds: number;
  /** CPU of each process, in % of one core. */
  procPct: Record<string, number>;
  /** CPU of the Redis masters, in % of one core. */
  redisPct: number;
  /** Commands the masters ran per second (scripts' own commands included), most first. */
  commands: Array<{ cmd: string; perS: number }>;
}

/** What every process and Redis node has used so far: CPU, system calls, commands. */
interface Reading {
  nodes: RedisNode[];
  cpuMs: Map<string, number>;
  io: Map<string, { reads: number; writes: number }>;
}

async function readAll(procs: ServerChild[], target: Target): Promise<Reading> {
  return {
    nodes: await target.redisNodes(),
    cpuMs: new Map(procs.map((p) => [p.name, cpuMs(p.pid)])),
    io: new Map(procs.map((p) => [p.name, ioCalls(p.pid)])),
  };
}

/** What was used between two readings: CPU seconds and system calls per process, Redis CPU and commands. */
function usedBetween(a: Reading, b: Reading): {
  procCpu: Record<string, number>;
  procIo: Record<string, { reads: number; writes: number }>;
  redisCpu: RedisCpu;
  redisCommands: Array<{ cmd: string; calls: number; s: number }>;
} {
  const names = [...b.cpuMs.keys()];
  const [c0, c1] = [cpuByRole(a.nodes), cpuByRole(b.nodes)];
  return {
    procCpu: Object.fromEntries(names.map((n) => [n, ((b.cpuMs.get(n) ?? 0) - (a.cpuMs.get(n) ?? 0)) / 1000])),
    procIo: Object.fromEntries(names.map((n) => {
      const [x, y] = [a.io.get(n) ?? { reads: 0, writes: 0 }, b.io.get(n) ?? { reads: 0, writes: 0 }];
      return [n, { reads: y.reads - x.reads, writes: y.writes - x.writes }];
    })),
    redisCpu: {
      masters: c1.masters - c0.masters, replicas: c1.replicas - c0.replicas,
      byMaster: c1.byMaster.map((m) => ({ port: m.port, s: m.s - (c0.byMaster.find((x) => x.port === m.port)?.s ?? 0) })),
    },
    redisCommands: commandsBetween(a.nodes, b.nodes),
  };
}

/**
 * The cost of the directories alone: `seconds` with the workers ready and nothing pushed. What a worker
 * does then (its sweeps, recovery and polls) grows with the number of directories, not with the work.
 */
async function measureIdle(procs: ServerChild[], target: Target, seconds: number): Promise<Idle> {
  const before = await readAll(procs, target);
  await sleep(seconds * 1000);
  const used = usedBetween(before, await readAll(procs, target));
  return {
    seconds,
    procPct: Object.fromEntries(Object.entries(used.procCpu).map(([n, s]) => [n, s * 100 / seconds])),
    redisPct: used.redisCpu.masters * 100 / seconds,
    commands: [...used.redisCommands].sort((x, y) => y.calls - x.calls).map((c) => ({ cmd: c.cmd, perS: c.calls / seconds })),
  };
}

/** Commands the masters ran between two readings (calls and seconds per command, summed over the masters). */
function commandsBetween(before: RedisNode[], after: RedisNode[]): Array<{ cmd: string; calls: number; s: number }> {
  const sum = (nodes: RedisNode[]) => {
    const out = new Map<string, { calls: number; usec: number }>();
    for (const n of nodes) {
      if (n.role !== "master") continue;
      for (const [cmd, c] of n.commands) {
        const o = out.get(cmd) ?? { calls: 0, usec: 0 };
        out.set(cmd, { calls: o.calls + c.calls, usec: o.usec + c.usec });
      }
    }
    return out;
  };
  const b = sum(before);
  return [...sum(after)].map(([cmd, c]) => ({ cmd, calls: c.calls - (b.get(cmd)?.calls ?? 0), s: (c.usec - (b.get(cmd)?.usec ?? 0)) / 1e6 }))
    .filter((c) => c.calls > 0).sort((x, y) => y.s - x.s);
}

/** CPU seconds of these nodes, summed by role. */
function cpuByRole(nodes: RedisNode[]): RedisCpu {
  const out: RedisCpu = { masters: 0, replicas: 0, byMaster: [] };
  for (const n of nodes) {
    out[n.role === "replica" ? "replicas" : "masters"] += n.cpu;
    if (n.role === "master") out.byMaster.push({ port: n.port, s: n.cpu });
  }
  return out;
}

const dirId = (i: number) => `d${String(i).padStart(4, "0")}`;
const tokenOf = (dir: string, tag: string) => `bench-${tag}-${dir}`;
/** The warm-up's own directory (not one of the timed ones) and its users' userName suffix. */
const WARMUP_DIR = "warmup";
const warmupSuffix = (tag: string) => `@warmup.${tag}.example`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Established TCP connections to any of `ports`, by socket inode: remote port (hex, as the kernel lists it). */
type TcpTable = Map<string, string>;

/**
 * The machine's established connections to `ports`, read once for every process of a sample: the table is
 * the network namespace's, the same whichever process's /proc it is read through, and the kernel walks all of
 * its hash buckets for each read (5–6 ms of this process's CPU per file at full size, where a sample read it
 * twice per bridge process every 100 ms: a quarter of a core taken from the processes it measures).
 */
function tcpTable(ports: number[]): TcpTable {
  const hex = new Set(ports.map((p) => p.toString(16).toUpperCase().padStart(4, "0")));
  const out: TcpTable = new Map();
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const remotePort = f[2].split(":")[1];
      // 01: ESTABLISHED
      if (f[3] === "01" && hex.has(remotePort)) out.set(f[9], remotePort);
    }
  }
  return out;
}

/**
 * TCP connections of `pid` in `table` (its socket fds matched against it, each socket counted once): in all,
 * and to the busiest one port (a managed Redis caps connections per node).
 */
function redisConnections(pid: number, table: TcpTable): { total: number; perNode: number; byPort: Map<number, number> } {
  const byPort = new Map<string, number>();
  const seen = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      // each socket once: a read of /proc/net/tcp while sockets open and close can list an entry twice (the
      // kernel walks its table in chunks), which counted up to 19 for 14 sockets; the table is keyed by socket
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      const port = m && !seen.has(m[1]) ? table.get(m[1]) : undefined;
      if (port) {
        seen.add(m![1]);
        byPort.set(port, (byPort.get(port) ?? 0) + 1);
      }
    } catch { /* closed meanwhile */ }
  }
  const counts = [...byPort.values()];
  const ports10 = new Map([...byPort].map(([h, n]) => [parseInt(h, 16), n]));
  return { total: counts.reduce((a, b) => a + b, 0), perNode: Math.max(0, ...counts), byPort: ports10 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Waits { median: number; p99: number; max: number }

function waitsOf(values: number[]): Waits {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

/** The fairness goal's figure: the longest wait ÷ the median wait (≤ 2). */
function spread(w: Waits): number {
  return w.max / Math.max(1, w.median);
}

interface RunResult {
  mode: string;
  workers: number;
  /** Its round (BENCH_ROUNDS > 1 only). */
  round?: number;
  pushRps: number;
  pushS: number;
  matchS: number;
  /** Each directory's wait for its first sync, from this process sending its first write (the IdP's view). */
  firstSync: Waits;
  /**
   * The same wait from the bridge accepting that write (the `meta.created` it stamped on it): the sync's
   * part alone, without the request's time in the server's queue or this process's lag.
   */
  firstSyncFromAccept: Waits;
  /** The slowest directories: id, shard, first push after the start, wait. */
  slowest: Array<{ d: string; shard: number; pushedAt: number; wait: number }>;
  /** Median first-sync wait of each shard's directories. */
  shardMedians: number[];
  conns: Record<string, number>;
  /** Peak connections of a process to its busiest Redis node. */
  connsPerNode: Record<string, number>;
  rss: Record<string, number>;
  /** When each process's connection count peaked (ms after its start) and to which ports, with each port's role. */
  peakAt: Record<string, { ms: number; byPort: Array<{ port: number; role: string; n: number }> }>;
  /** The processes' and masters' cost before the push, with nothing to do (BENCH_IDLE_SECONDS). */
  idle?: Idle;
  /** Read and write system calls of each process from the first push until the simulator matched (sockets, mostly). */
  procIo: Record<string, { reads: number; writes: number }>;
  /** Commands the Redis masters ran from the first push until the simulator matched, most time first. */
  redisCommands: Array<{ cmd: string; calls: number; s: number }>;
  /** CPU seconds of the Redis processes from the first push until the simulator matched. */
  redisCpu: RedisCpu;
  /** CPU seconds of each bridge process over the same span. */
  procCpu: Record<string, number>;
  /** Summed over the workers' /metrics: reconcile attempts by kind and outcome, platform calls by status. */
  attempts: Record<string, number>;
  calls: Record<string, number>;
}

/**
 * Sums a counter of the workers' /metrics by some of its labels (e.g. `sync_jobs_total` by `kind` and
 * `outcome`, keyed "user created"; series without one of them are left out): a failed
 * attempt retried after its backoff (sync.backoffMs) is a directory waiting a second longer, which the
 * waits alone do not tell apart from queueing.
 */
async function sumCounter(workers: ServerChild[], metric: string, ...labels: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const line = new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`, "gm");
  const wanted = labels.map((l) => new RegExp(`(?:^|,)${l}="([^"]*)"`));
  for (const w of workers) {
    const text = await (await fetch(`${w.origin}/metrics`)).text();
    for (const m of text.matchAll(line)) {
      const values = wanted.map((re) => re.exec(m[1])?.[1]);
      if (values.some((v) => v === undefined)) continue;
      const key = values.join(" ");
      out[key] = (out[key] ?? 0) + Number(m[2]);
    }
  }
  return out;
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

async function oneRun(target: Target, workersN: number, round: number): Promise<RunResult> {
  const sim = await startSim();
  try {
    return await runWith(sim, target, workersN, round);
  } finally {
    await sim.proc.kill("SIGTERM").catch(() => undefined);
  }
}

function startSim(): Promise<SimProcess> {
  return startSimProcess(set, {
    tenant: { name: "bench", useCreatorMode: true }, apiKeys: [{ name: "bridge", key: PLATFORM_KEY }], deployments: [{ id: 1, name: "production" }],
    admin: { header: "x-sim-token", token: SIM_TOKEN }, faults: { rateLimit: null },
  });
}

async function runWith(sim: SimProcess, target: Target, workersN: number, round: number): Promise<RunResult> {
  const redisPorts = target.ports;
  const prefix = `bench-scale-${randomUUID()}`;
  prefixes.push(prefix);
  const tag = randomBytes(3).toString("hex");
  const dirs = Array.from({ length: DIRS }, (_, i) => dirId(i));
  const port = await freePort();
  const config = {
    server: { host: "127.0.0.1", port, publicBaseUrl: `http://127.0.0.1:${port}` },
    redis: target.redisConfig(prefix),
    log: { level: process.env.BENCH_LOG_LEVEL ?? "warn" },
    metrics: { workerPort: 0 },
    // the sweeper's and admission recovery's interval is the default (5 s): each round visits every directory
    sync: { queueShards: SHARDS, shardConcurrency: SHARD_CONCURRENCY },
    directories: [...dirs, ...(WARMUP_USERS > 0 ? [WARMUP_DIR] : [])].map((id) => ({
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
  const server = await startChild("server", [...SERVER_NODE_ARGS, main, "server"], env, port, "/healthz", preload);
  children.push(server);
  const workers: ServerChild[] = [];
  for (let w = 0; w < workersN; w++) {
    const mport = await freePort();
    // ready (/readyz 200) once it takes jobs: every directory registered, its shard workers running. Its
    // /healthz answers from the start, and a push begun then timed the worker's start-up as sync waits.
    const child = await startChild(`worker-${w + 1}`, [...WORKER_NODE_ARGS, main, "worker"], { ...env, METRICS_PORT: String(mport) }, mport, "/readyz", preload, true);
    children.push(child);
    workers.push(child);
  }
  const procs = [server, ...workers];
  const peakRss: Record<string, number> = {};
  const peakConns: Record<string, number> = {};
  const peakPerNode: Record<string, number> = {};
  const peakSeen: Record<string, { ms: number; byPort: Map<number, number> }> = {};
  const started = Date.now();
  const sample = () => {
    const table = tcpTable(redisPorts);
    for (const p of procs) {
      try {
        peakRss[p.name] = Math.max(peakRss[p.name] ?? 0, rssMiB(p.pid));
        const c = redisConnections(p.pid, table);
        if (c.total > (peakConns[p.name] ?? 0)) peakSeen[p.name] = { ms: Date.now() - started, byPort: c.byPort };
        peakConns[p.name] = Math.max(peakConns[p.name] ?? 0, c.total);
        peakPerNode[p.name] = Math.max(peakPerNode[p.name] ?? 0, c.perNode);
      } catch { /* exited */ }
    }
  };
  sample();
  // often enough to see a connection that lives for a few milliseconds (ioredis's slot refresher)
  const sampler = setInterval(sample, SAMPLE_MS);

  // per directory: its first push (here) and its first item on the platform (the simulator's meta.created, below)
  const firstPush = new Map<string, number>();
  // and when the server answered that push (how much of the wait is the SCIM request itself)
  const firstAnswer = new Map<string, number>();
  // and when the bridge accepted it (its own meta.created: no queue in front of the server, no lag of this process)
  const firstAccepted = new Map<string, number>();

  // the push: requests interleaved across directories (every directory starts at once), groups after users
  const pool = makePool(server.origin, PUSH_CLIENTS);
  pools.push(pool);
  const perDir = dirs.map((d) => ({ d, reqs: requestsOf(d, tag), ids: [] as string[] }));
  const order: Array<{ i: number; r: number }> = [];
  const longest = USERS + GROUPS;
  for (let r = 0; r < longest; r++) for (let i = 0; i < perDir.length; i++) if (r < perDir[i].reqs.length) order.push({ i, r });
  let next = 0;
  let sent = 0;
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
  if (WARMUP_USERS > 0) {
    // untimed: the server's and the workers' request paths compiled before the clock starts, as bench/scim
    // warms up before its rounds (cold, the first few pushes took up to 4.4 s to be answered)
    const w0 = Date.now();
    let w = 0;
    await Promise.all(Array.from({ length: PUSH_CLIENTS }, async () => {
      for (let i = w++; i < WARMUP_USERS; i = w++) {
        await send("POST", WARMUP_DIR, "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `w${i}${warmupSuffix(tag)}`, active: true });
      }
    }));
    while ((await sim.state()).scim.users.filter((u) => u.userName.endsWith(warmupSuffix(tag))).length < WARMUP_USERS) await sleep(200);
    console.log(`  (warm-up, untimed: ${WARMUP_USERS} users of directory ${WARMUP_DIR} pushed and synced in ${fmt((Date.now() - w0) / 1000)} s)`);
    sent = 0;
  }
  const idle = IDLE_SECONDS > 0 ? await measureIdle(procs, target, IDLE_SECONDS) : undefined;
  const before = await readAll(procs, target);
  const pushedBefore = await sim.counts();
  const t0 = Date.now();
  await Promise.all(Array.from({ length: PUSH_CLIENTS }, async () => {
    for (;;) {
      const k = next++;
      if (k >= order.length) return;
      const { i, r } = order[k];
      const pd = perDir[i];
      if (!firstPush.has(pd.d)) firstPush.set(pd.d, Date.now());
      const req = pd.reqs[r];
      const created = await send("POST", pd.d, req.path, req.body);
      if (!firstAnswer.has(pd.d)) {
        firstAnswer.set(pd.d, Date.now());
        firstAccepted.set(pd.d, Date.parse(String((created.meta as { created?: string } | undefined)?.created)));
      }
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

  // until the simulator holds every user, group and membership of this run: its counts, polled (its whole
  // state is tens of MB at full size, and serialising it every poll held the workers' platform calls),
  // then the state once, checked resource by resource
  const wantUsers = DIRS * USERS;
  const wantGroups = DIRS * GROUPS;
  const wantMembers = DIRS * GROUPS * MEMBERS;
  const inRun = (s: Awaited<ReturnType<SimProcess["state"]>>): SimCounts => {
    const users = s.scim.users.filter((u) => u.userName.endsWith(`.${tag}@bench.example`)).length;
    const groups = s.scim.groups.filter((g) => g.displayName.endsWith(` ${tag}`));
    return { users, groups: groups.length, members: groups.reduce((a, g) => a + g.members.length, 0) };
  };
  const matches = (c: SimCounts) => c.users >= wantUsers && c.groups >= wantGroups && c.members >= wantMembers;
  const progress = (c: SimCounts) => `${c.users}/${wantUsers} users, ${c.groups}/${wantGroups} groups, ${c.members}/${wantMembers} members`;
  let last = "";
  let final: Awaited<ReturnType<SimProcess["state"]>>;
  for (;;) {
    const c = await sim.counts();
    // the warm-up's users are the only others the simulator holds
    const seen = { users: c.users - pushedBefore.users, groups: c.groups - pushedBefore.groups, members: c.members - pushedBefore.members };
    last = progress(seen);
    if (matches(seen)) {
      final = await sim.state();
      const exact = inRun(final);
      if (matches(exact)) break;
      last = progress(exact);
    }
    if (Date.now() - t0 > 30 * 60_000) throw new Error(`the simulator did not match within 30 minutes: ${last}`);
    await sleep(500);
  }
  const matchMs = Date.now() - t0;
  const after = await readAll(procs, target);
  const used = usedBetween(before, after);
  const roles = new Map(after.nodes.map((n) => [n.port, n.role]));
  clearInterval(sampler);
  sample();

  // the simulator stamps each user with the moment it created it (same machine, same clock): a directory's
  // first sync is its earliest user there — exact, where polling the bridge would add its interval and load
  const firstSync = new Map<string, number>();
  const suffix = `.${tag}@bench.example`;
  for (const u of final.scim.users) {
    if (!u.userName.endsWith(suffix)) continue;
    const d = u.userName.slice(u.userName.indexOf(".") + 1, -suffix.length);
    const at = Date.parse(String((u.meta as { created?: string } | undefined)?.created));
    if (!Number.isNaN(at) && at < (firstSync.get(d) ?? Infinity)) firstSync.set(d, at);
  }
  const waitOf = (d: string) => (firstSync.get(d) ?? Date.now()) - (firstPush.get(d) ?? t0);
  const waitFromAccept = (d: string) => (firstSync.get(d) ?? Date.now()) - (firstAccepted.get(d) ?? t0);
  if (WAITS_FILE) {
    const rows = dirs.map((d) => `${d},${shardOf(d, SHARDS)},${(firstPush.get(d) ?? t0) - t0},${(firstAccepted.get(d) ?? t0) - t0},${(firstAnswer.get(d) ?? t0) - t0},${(firstSync.get(d) ?? Date.now()) - t0}`);
    fs.writeFileSync(`${WAITS_FILE}.${target.mode}-${workersN}${ROUNDS > 1 ? `-r${round}` : ""}.csv`, `directory,shard,first_push_ms,first_accepted_ms,first_answer_ms,first_sync_ms\n${rows.join("\n")}\n`);
  }
  const byShard = Array.from({ length: SHARDS }, () => [] as number[]);
  for (const d of dirs) byShard[shardOf(d, SHARDS)].push(waitOf(d));
  const slowest = [...dirs].sort((a, b) => waitOf(b) - waitOf(a)).slice(0, 5)
    .map((d) => ({ d, shard: shardOf(d, SHARDS), pushedAt: (firstPush.get(d) ?? t0) - t0, wait: waitOf(d) }));
  const result: RunResult = {
    mode: target.mode, workers: workersN, round: ROUNDS > 1 ? round : undefined, pushRps: sent / (pushMs / 1000), pushS: pushMs / 1000, matchS: matchMs / 1000,
    firstSync: waitsOf(dirs.map(waitOf)), firstSyncFromAccept: waitsOf(dirs.map(waitFromAccept)),
    slowest, shardMedians: byShard.map((w) => percentile(w.sort((a, b) => a - b), 50)),
    conns: peakConns, connsPerNode: peakPerNode, rss: peakRss,
    peakAt: Object.fromEntries(Object.entries(peakSeen).map(([name, { ms, byPort }]) => [name, {
      ms, byPort: [...byPort].sort((a, b) => a[0] - b[0]).map(([port, n]) => ({ port, role: roles.get(port) ?? "?", n })),
    }])),
    ...used, idle,
    attempts: await sumCounter(workers, "sync_jobs_total", "kind", "outcome"),
    calls: await sumCounter(workers, "platform_calls_total", "status"),
  };
  await pool.close();
  for (const c of procs) await c.stop();
  children.splice(0);
  if (target.client instanceof Redis) await deleteKeys(target.client, prefix);
  // the bench's own cluster: emptied between runs, so a later round does not run on an earlier one's data
  else await Promise.all(target.client.nodes("master").map((node) => node.flushall()));
  return result;
}

function print(r: RunResult): void {
  const w = Object.keys(r.rss).filter((n) => n.startsWith("worker"));
  console.log(`\n${r.workers} worker process(es), ${r.mode} Redis${r.mode === "cluster" ? CLUSTER_NOTE : ""}${r.round ? `, round ${r.round} of ${ROUNDS}` : ""}:`);
  console.log(`  push: ${fmt(r.pushRps)} req/s (${fmt(r.pushS)} s); simulator matched after ${fmt(r.matchS)} s`);
  const waits = (w: Waits) => `median ${fmt(w.median / 1000)} s, p99 ${fmt(w.p99 / 1000)} s, max ${fmt(w.max / 1000)} s (max ÷ median ${fmt(spread(w))}`;
  console.log(`  first sync wait per directory: ${waits(r.firstSync)}; goal ≤ 2)`);
  console.log(`    of which after the bridge accepted the write (the sync's part alone): ${waits(r.firstSyncFromAccept)})`);
  console.log(`  slowest: ${r.slowest.map((x) => `${x.d} (shard ${x.shard}, first push +${fmt(x.pushedAt / 1000)} s, wait ${fmt(x.wait / 1000)} s)`).join(", ")}`);
  console.log(`  Redis CPU during the run: ${fmt(r.redisCpu.masters)} s${r.mode === "cluster" ? ` on the masters (${r.redisCpu.byMaster.map((m) => `:${m.port} ${fmt(m.s)} s`).join(", ")}), ${fmt(r.redisCpu.replicas)} s on the replicas` : ""} (${fmt((r.redisCpu.masters + r.redisCpu.replicas) / r.matchS * 100)}% of one core)`);
  if (r.idle) {
    const cmds = r.idle.commands.slice(0, 6).map((c) => `${c.cmd} ${fmt(c.perS)}`).join(", ");
    console.log(`  idle before the push (${r.idle.seconds} s, ${DIRS + (WARMUP_USERS > 0 ? 1 : 0)} directories, nothing to do): CPU ${Object.entries(r.idle.procPct).map(([n, p]) => `${n} ${fmt(p)}%`).join(", ")}, Redis ${fmt(r.idle.redisPct)}% of a core; commands run/s, scripts' own included: ${fmt(r.idle.commands.reduce((n, c) => n + c.perS, 0))} (${cmds})`);
  }
  const top = r.redisCommands.slice(0, TOP_COMMANDS || undefined).map((c) => `${c.cmd} ${c.calls} (${fmt(c.s)} s)`).join(", ");
  console.log(`  Redis commands: ${r.redisCommands.reduce((n, c) => n + c.calls, 0)} calls (scripts' own commands included); most time: ${top}`);
  const list = (o: Record<string, number>) => Object.entries(o).sort().map(([k, n]) => `${k} ${n}`).join(", ");
  console.log(`  reconcile attempts by kind and outcome (warm-up included): ${list(r.attempts)}; platform calls by status: ${list(r.calls)}`);
  console.log(`  median wait per shard: ${r.shardMedians.map((m, i) => `q${i} ${fmt(m / 1000)} s`).join(", ")}`);
  for (const name of Object.keys(r.rss)) {
    const goal = name.startsWith("worker") ? ` (goals: ≤ 16 connections, < 250 MiB)` : "";
    const perNode = r.mode === "cluster" ? ` (${r.connsPerNode[name]} to the busiest node)` : "";
    const io = r.procIo[name];
    console.log(`  ${name}: ${r.conns[name]} Redis connections${perNode} (peak), peak RSS ${fmt(r.rss[name])} MiB${goal}; CPU ${fmt(r.procCpu[name])} s; ${io.reads} read and ${io.writes} write system calls`);
    const at = r.peakAt[name];
    if (at) console.log(`    peak reached +${fmt(at.ms / 1000)} s after start: ${at.byPort.map((b) => `${b.n} to :${b.port} (${b.role})`).join(", ")}`);
  }
  const ok = w.every((n) => r.conns[n] <= 16 && r.rss[n] < 250);
  const okPerNode = w.every((n) => r.connsPerNode[n] <= 16 && r.rss[n] < 250);
  console.log(`  workers within goals: ${ok ? "yes" : "NO"}${r.mode === "cluster" ? `; counting connections per node: ${okPerNode ? "yes" : "NO"}` : ""}`);
}

async function singleTarget(): Promise<Target> {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectionName: "scim-bridge-bench", retryStrategy: (n) => (n > 5 ? null : 200) });
  redis.on("error", () => undefined);
  await redis.ping();
  const ports = [Number(new URL(REDIS_URL).port || 6379)];
  return { mode: "single", client: redis, ports, redisConfig: (keyPrefix) => ({ url: REDIS_URL, keyPrefix }), redisNodes: () => redisNodesOf(ports) };
}

async function clusterTarget(): Promise<Target> {
  const cluster: LocalCluster = await startRedisCluster(set, 2000, CLUSTER_REPLICAS, CLUSTER_MASTERS);
  clusterClient = new Cluster(cluster.seeds.map((s) => ({ host: "127.0.0.1", port: Number(s.split(":")[1]) })), { redisOptions: { connectionName: "scim-bridge-bench" } });
  clusterClient.on("error", () => undefined);
  await clusterClient.ping();
  return {
    mode: "cluster", client: clusterClient, ports: cluster.nodes.map((n) => n.port),
    redisConfig: (keyPrefix) => ({ url: "redis://", clusterNodes: cluster.seeds, keyPrefix }),
    redisNodes: () => redisNodesOf(cluster.nodes.map((n) => n.port)),
  };
}

async function main(): Promise<void> {
  for (const m of MODES) if (m !== "single" && m !== "cluster") throw new Error(`BENCH_REDIS: expected single and/or cluster, got ${m}`);
  console.log(`bench/scale — node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)} at start`);
  console.log(`${DIRS} directories × ${USERS} users and ${GROUPS} groups of ${MEMBERS} members, pushed over ${PUSH_CLIENTS} connections; ${SHARDS} queue shards × ${SHARD_CONCURRENCY} jobs; workers: ${WORKER_COUNTS.join(", ")} (node ${WORKER_NODE_ARGS.join(" ")}); Redis: ${MODES.join(", ")}${MODES.includes("cluster") ? ` (cluster: ${CLUSTER_MASTERS} master(s) × ${CLUSTER_REPLICAS} replica(s))` : ""}`);
  const build = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  spawnSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "bench/scim/tsconfig.json"], { cwd: ROOT });
  const targets: Target[] = [];
  for (const m of MODES) targets.push(m === "single" ? await singleTarget() : await clusterTarget());
  const results: RunResult[] = [];
  // side by side: for each worker count, every Redis in turn (the first one first in odd rounds, last in even)
  for (let round = 1; round <= ROUNDS; round++) {
    for (const n of WORKER_COUNTS) {
      for (const t of round % 2 ? targets : [...targets].reverse()) {
        const r = await oneRun(t, n, round);
        print(r);
        results.push(r);
      }
    }
  }
  console.log("");
  const two = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(", ");
  /** Per round that has both, the run matching `a` and the run matching `b`: the pairs a ratio is the median of. */
  const pairs = (a: (r: RunResult) => boolean, b: (r: RunResult) => boolean): Array<[RunResult, RunResult]> => {
    const out: Array<[RunResult, RunResult]> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const inRound = (r: RunResult) => (r.round ?? 1) === round;
      const [ra, rb] = [results.find((r) => inRound(r) && a(r)), results.find((r) => inRound(r) && b(r))];
      if (ra && rb) out.push([ra, rb]);
    }
    return out;
  };
  for (const n of WORKER_COUNTS) {
    const runs = pairs((r) => r.mode === "single" && r.workers === n, (r) => r.mode === "cluster" && r.workers === n);
    const push = runs.map(([s1, c1]) => c1.pushRps / s1.pushRps);
    const sync = runs.map(([s1, c1]) => s1.matchS / c1.matchS);
    // two decimals: at one, 0.89 printed as 0.9 and read as the goal met
    if (push.length) {
      const rounds = ROUNDS > 1 ? ` (median of ${push.length} rounds: push ${two(push)}; sync ${two(sync)})` : "";
      console.log(`cluster${CLUSTER_NOTE} ÷ single Redis, ${n} worker(s): push ${median(push).toFixed(2)}×, sync throughput (1 ÷ time to match) ${median(sync).toFixed(2)}× (goal ≥ 0.9)${rounds}`);
    }
  }
  for (const m of MODES) {
    for (const n of WORKER_COUNTS) {
      const ratios = results.filter((r) => r.mode === m && r.workers === n).map((r) => spread(r.firstSync));
      if (ROUNDS > 1) console.log(`${m} Redis, ${n} worker(s): first-sync max ÷ median per round ${two(ratios)}, median ${median(ratios).toFixed(2)} (goal ≤ 2)`);
    }
  }
  // 3 ÷ 1 worker(s) per Redis target: each round's pair, and their median (the guide's "median of ratios")
  if (WORKER_COUNTS.length >= 2) {
    const [a, b] = [WORKER_COUNTS[0], WORKER_COUNTS[WORKER_COUNTS.length - 1]];
    for (const m of MODES) {
      const runs = pairs((r) => r.mode === m && r.workers === a, (r) => r.mode === m && r.workers === b);
      const speed = runs.map(([ra, rb]) => ra.matchS / rb.matchS);
      const push = runs.map(([ra, rb]) => rb.pushRps / ra.pushRps);
      if (!speed.length) continue;
      const rounds = ROUNDS > 1 ? ` (median of ${speed.length} rounds: speed ${two(speed)}; push ${two(push)})` : "";
      console.log(`${m} Redis, ${b} ÷ ${a} worker(s): sync speed (1 ÷ time to match) ${median(speed).toFixed(2)}×, push ${median(push).toFixed(2)}×${rounds}`);
    }
  }
}

runBench(main, async () => {
  for (const p of pools) await p.close().catch(() => undefined);
  for (const c of children) await c.stop().catch(() => undefined);
  await set.killAll();
  if (redis) for (const p of prefixes) await deleteKeys(redis, p).catch(() => undefined);
  redis?.disconnect();
  clusterClient?.disconnect();
}, children);
