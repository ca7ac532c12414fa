/**
 * bench/scim request log — what the per-directory SCIM request log costs the server's POST /Users
 * throughput: two servers side by side in one run (the production entry point in the `server` role, the
 * image's node flags), the same directory on each, its `requestLog.enabled` on one and off on the other,
 * each with its own key prefix on the Redis at REDIS_URL (deleted at the end). Both get an untimed warm-up,
 * then BENCH_ROUNDS (5) interleaved rounds (on first in even rounds, off first in odd ones) of
 * BENCH_ROUND_USERS (2,000) POSTs with BENCH_CLIENTS (50) clients; reported: each round's requests/s, the
 * server CPU per request, and the median of the per-round ratios on/off. The goal: the log costs ≤ 10%
 * (median ratio ≥ 0.90). Run: `npm run bench:request-log`. BENCH_ON_NODE_ARGS / BENCH_OFF_NODE_ARGS: extra node
 * flags for either server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import type { Pool } from "undici";
import { hashToken } from "../../src/auth/token";
import { cpuMs, freePort, IMAGE_NODE_ARGS, startChild, type ServerChild } from "./children";
import { makePool, runLoad, summarise } from "./load";
import { postUsers, type Target } from "./scenarios";
import { median } from "./report";
import { deleteKeys, envNumber, runBench } from "./harness";

const ROOT = path.resolve(__dirname, "../..");
const CHILD_JS = path.join(ROOT, "node_modules/.cache/scim-bridge-bench");
const CLIENTS = envNumber("BENCH_CLIENTS", 50);
const ROUNDS = envNumber("BENCH_ROUNDS", 5);
const ROUND_USERS = envNumber("BENCH_ROUND_USERS", 2000);
const WARMUP = envNumber("BENCH_WARMUP_USERS", 1000);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const DIRECTORY = "bench";

const runTag = randomBytes(3).toString("hex");
const prefixes = { on: `bench-${randomUUID()}`, off: `bench-${randomUUID()}` };
const children: ServerChild[] = [];
const pools: Pool[] = [];
let redis: Redis | undefined;

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed:\n${r.stdout}${r.stderr}`);
}

async function server(which: "on" | "off", token: string): Promise<Target> {
  const port = await freePort();
  const config = {
    server: { host: "127.0.0.1", port, publicBaseUrl: `http://127.0.0.1:${port}` },
    redis: { url: REDIS_URL, keyPrefix: prefixes[which] },
    log: { level: "warn" },
    directories: [{
      id: DIRECTORY, tokenHashes: [hashToken(token)], target: "workforce", requestLog: { enabled: which === "on" },
      platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "BENCH_UNUSED_PLATFORM_KEY" },
    }],
  };
  const extra = (process.env[`BENCH_${which.toUpperCase()}_NODE_ARGS`] ?? "").split(" ").filter(Boolean);
  const child = await startChild(`log ${which}`, [...IMAGE_NODE_ARGS, ...extra, path.join(ROOT, "dist/main.js"), "server"],
    { PATH: process.env.PATH, SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config) }, port, "/healthz", path.join(CHILD_JS, "exit-with-parent.js"));
  children.push(child);
  const pool = makePool(child.origin, CLIENTS);
  pools.push(pool);
  return { label: `log ${which}`, child, pool, auth: `Bearer ${token}`, base: `/scim/v2/${DIRECTORY}`, userIds: [] };
}

async function round(t: Target, from: number): Promise<{ rps: number; cpuPerRequestMs: number }> {
  const cpu0 = cpuMs(t.child.pid);
  const r = await runLoad(t.pool, t.auth, postUsers(t, from, from + ROUND_USERS, CLIENTS, runTag));
  const s = summarise(r);
  if (s.errors || s.abandoned) throw new Error(`${t.label}: ${s.errors} errors, ${s.abandoned} abandoned`);
  return { rps: s.rps, cpuPerRequestMs: (cpuMs(t.child.pid) - cpu0) / s.count };
}

async function main(): Promise<void> {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectionName: "scim-bridge-bench" });
  redis.on("error", () => undefined);
  await redis.ping();
  console.log(`bench/scim request log — ${CLIENTS} clients; node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), load average ${os.loadavg()[0].toFixed(2)} at start`);
  run("npm", ["run", "-s", "build"]);
  run(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "bench/scim/tsconfig.json"]);
  const token = randomBytes(24).toString("base64url");
  const on = await server("on", token);
  const off = await server("off", token);
  for (const t of [on, off]) await runLoad(t.pool, t.auth, postUsers(t, 0, WARMUP, CLIENTS, runTag));
  const ratios: number[] = [];
  console.log(`\nround  log on req/s  (CPU ms/req)  log off req/s  (CPU ms/req)  on/off`);
  for (let r = 0; r < ROUNDS; r++) {
    const from = WARMUP + r * ROUND_USERS;
    const order = r % 2 === 0 ? [on, off] : [off, on];
    const got = new Map<Target, { rps: number; cpuPerRequestMs: number }>();
    for (const t of order) got.set(t, await round(t, from));
    const a = got.get(on)!;
    const b = got.get(off)!;
    ratios.push(a.rps / b.rps);
    console.log(`${String(r + 1).padStart(5)}  ${a.rps.toFixed(0).padStart(12)}  (${a.cpuPerRequestMs.toFixed(3)})  ${b.rps.toFixed(0).padStart(13)}  (${b.cpuPerRequestMs.toFixed(3)})  ${(a.rps / b.rps).toFixed(3)}`);
  }
  const m = median(ratios);
  const logKey = `${prefixes.on}:{${DIRECTORY}}:rl`;
  const [entries, bytes] = await Promise.all([redis.xlen(logKey), redis.hget(`${logKey}:ids`, ":bytes")]);
  console.log(`\nmedian on/off ${m.toFixed(3)} → the request log costs ${((1 - m) * 100).toFixed(1)}% of POST throughput (goal ≤ 10%): ${m >= 0.9 ? "PASS" : "FAIL"}`);
  console.log(`the log holds ${entries.toLocaleString("en-US")} entries, ${(Number(bytes) / 1024 / 1024).toFixed(1)} MB (${(Number(bytes) / entries).toFixed(0)} bytes per POST entry)`);
}

async function cleanup(): Promise<void> {
  await Promise.allSettled(children.map((c) => c.stop()));
  await Promise.allSettled(pools.map((p) => p.destroy()));
  if (!redis) return;
  const r = redis;
  redis = undefined;
  try {
    for (const p of Object.values(prefixes)) await deleteKeys(r, p);
  } finally {
    r.disconnect();
  }
}

runBench(main, cleanup, children);
