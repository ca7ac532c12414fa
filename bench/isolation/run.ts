/**
 * bench/isolation — one directory's heavy queries must not stall another (issue 9 item 5, DESIGN.md §6
 * "Isolation: another directory's p99 stays < 50 ms while one directory runs worst-case filters").
 *
 * One bridge in the `server` role (`node dist/main.js server`, built first) with two directories:
 *   heavy:  BENCH_HEAVY_USERS (50,000) users, written straight into the store;
 *   victim: BENCH_VICTIM_USERS (1,000) users.
 * In BENCH_ROUNDS (3) rounds, each with two runs of BENCH_SECONDS (10) s, in alternating order:
 *   alone — BENCH_VICTIM_CLIENTS (10) clients on `victim`: `userName eq` lookups and `GET /Users?count=1`;
 *   beside — the same, while BENCH_HEAVY_CLIENTS (8) clients on `heavy` send worst-case filters: as long
 *            as scim.maxFilterLength allows (4 KB), as many comparisons as scim.maxFilterTerms allows
 *            (64 `co` terms matching nothing, so every term is evaluated on every one of the 50,000 records).
 * It prints victim's p50/p99 side by side per round, the median of the rounds, and the heavy filters'
 * own latency, and checks the goal: victim p99 < 50 ms beside the heavy filters in the median round.
 * Redis at REDIS_URL, keys under a private prefix `bench-iso-<uuid>`, deleted at the end (also on Ctrl-C).
 * Run: `npm run bench:isolation`.
 */
import { spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import type { Pool } from "undici";
import { hashToken } from "../../src/auth/token";
import { cpuMs, freePort, IMAGE_NODE_ARGS, rssMiB, startChild, type ServerChild } from "../scim/children";
import { seedUsers, userName } from "../scim/fixtures";
import { makePool, runLoad, summarise, type LoadResult, type LoadSpec } from "../scim/load";
import { fmt, tableHeader, tableRow } from "../scim/report";
import { deleteKeys, envNumber, runBench } from "../scim/harness";

const ROOT = path.resolve(__dirname, "../..");
const CHILD_JS = path.join(ROOT, "node_modules/.cache/scim-bridge-bench");
const env = envNumber;
const HEAVY_USERS = env("BENCH_HEAVY_USERS", 50_000);
const VICTIM_USERS = env("BENCH_VICTIM_USERS", 1_000);
const VICTIM_CLIENTS = env("BENCH_VICTIM_CLIENTS", 10);
const HEAVY_CLIENTS = env("BENCH_HEAVY_CLIENTS", 8);
const SECONDS = env("BENCH_SECONDS", 10);
const ROUNDS = env("BENCH_ROUNDS", 3);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MAX_FILTER_LENGTH = 4096;
const MAX_FILTER_TERMS = 64;

const prefix = `bench-iso-${randomUUID()}`;
const tag = randomBytes(3).toString("hex");
const children: ServerChild[] = [];
const pools: Pool[] = [];
let redis: Redis | undefined;

/** The worst filter the default limits let through: 64 `co` comparisons on scanned attributes, ~4 KB, matching nothing. */
function worstFilter(seq: number): string {
  const attrs = ["userName", "name.familyName", "emails.value", "title", "displayName", "name.givenName", "nickName", "locale"];
  const per = Math.floor((MAX_FILTER_LENGTH - 10) / MAX_FILTER_TERMS) - 24;
  const terms = Array.from({ length: MAX_FILTER_TERMS }, (_, i) => `${attrs[i % attrs.length]} co "${`zq${seq}x${i}`.padEnd(per, "q")}"`);
  const filter = terms.join(" or ");
  if (filter.length > MAX_FILTER_LENGTH) throw new Error(`worst filter is ${filter.length} characters, over ${MAX_FILTER_LENGTH}`);
  return filter;
}

function victimLoad(base: string, durationMs: number): LoadSpec {
  return {
    concurrency: VICTIM_CLIENTS, durationMs, hardStopMs: durationMs + 20_000, expect: [200],
    next: (seq) => (seq % 2 === 0
      ? { method: "GET", path: `${base}/Users?filter=${encodeURIComponent(`userName eq "${userName(seq % VICTIM_USERS, tag)}"`)}` }
      : { method: "GET", path: `${base}/Users?count=1` }),
  };
}

function heavyLoad(base: string, durationMs: number): LoadSpec {
  return {
    concurrency: HEAVY_CLIENTS, durationMs, hardStopMs: durationMs + 60_000, expect: [200],
    next: (seq) => ({ method: "POST", path: `${base}/Users/.search`, body: JSON.stringify({ filter: worstFilter(seq), count: 10 }) }),
    check: (body) => (JSON.parse(body) as { totalResults?: number }).totalResults === 0,
  };
}

async function cleanup(): Promise<void> {
  await Promise.allSettled(children.map((c) => c.stop()));
  await Promise.allSettled(pools.map((p) => p.destroy()));
  if (!redis) return;
  const r = redis;
  redis = undefined;
  const deleted = await deleteKeys(r, prefix);
  console.log(`\nRedis: deleted ${deleted.toLocaleString("en-US")} keys under ${prefix}*`);
  r.disconnect();
}

async function main(): Promise<void> {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectionName: "scim-bridge-bench", retryStrategy: (n) => (n > 5 ? null : 200) });
  redis.on("error", () => undefined);
  await redis.ping();
  console.log(`bench/isolation — node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)} at start; key prefix ${prefix}`);
  const build = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  spawnSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "bench/scim/tsconfig.json"], { cwd: ROOT });

  const t0 = Date.now();
  await seedUsers(redis, prefix, "heavy", 0, HEAVY_USERS, tag);
  await seedUsers(redis, prefix, "victim", 0, VICTIM_USERS, tag);
  console.log(`seeded ${HEAVY_USERS.toLocaleString("en-US")} users into "heavy" and ${VICTIM_USERS.toLocaleString("en-US")} into "victim" in ${fmt((Date.now() - t0) / 1000)} s`);

  // one token per directory: a token hash configured for two directories is refused at start
  const tokens = { heavy: randomBytes(24).toString("base64url"), victim: randomBytes(24).toString("base64url") };
  const port = await freePort();
  const dir = (id: "heavy" | "victim") => ({ id, tokenHashes: [hashToken(tokens[id])], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "BENCH_UNUSED_PLATFORM_KEY" } });
  const config = {
    server: { host: "127.0.0.1", port, publicBaseUrl: `http://127.0.0.1:${port}` },
    redis: { url: REDIS_URL, keyPrefix: prefix },
    log: { level: "warn" },
    directories: [dir("heavy"), dir("victim")],
  };
  const child = await startChild("ours", [...IMAGE_NODE_ARGS, path.join(ROOT, "dist/main.js"), "server"], { PATH: process.env.PATH, SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config) },
    port, "/healthz", path.join(CHILD_JS, "exit-with-parent.js"));
  children.push(child);
  const victimPool = makePool(child.origin, VICTIM_CLIENTS);
  const heavyPool = makePool(child.origin, HEAVY_CLIENTS);
  pools.push(victimPool, heavyPool);
  const victimAuth = `Bearer ${tokens.victim}`;
  const heavyAuth = `Bearer ${tokens.heavy}`;
  await runLoad(victimPool, victimAuth, { ...victimLoad("/scim/v2/victim", 1000), concurrency: 1 }); // warm-up
  const probe = await runLoad(heavyPool, heavyAuth, { ...heavyLoad("/scim/v2/heavy", 1), concurrency: 1, durationMs: undefined, total: 1 });
  if (probe.done !== 1) throw new Error(`a worst-case filter failed: ${[...probe.errors.keys()].join(", ")}`);
  console.log(`one worst-case filter (${worstFilter(0).length} characters, ${MAX_FILTER_TERMS} co terms) over ${HEAVY_USERS.toLocaleString("en-US")} users, alone: ${fmt(probe.elapsedMs)} ms`);

  const ms = SECONDS * 1000;
  const alone: number[] = [];
  const beside: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    tableHeader(`round ${r + 1} of ${ROUNDS}: "victim" (${VICTIM_CLIENTS} clients: userName eq lookups and GET /Users?count=1), ${SECONDS} s each`);
    const runAlone = async () => runLoad(victimPool, victimAuth, victimLoad("/scim/v2/victim", ms));
    const runBeside = async (): Promise<{ v: LoadResult; h: LoadResult; cpu: number }> => {
      const cpu0 = cpuMs(child.pid);
      const t0 = performance.now();
      const [v, h] = await Promise.all([runLoad(victimPool, victimAuth, victimLoad("/scim/v2/victim", ms)), runLoad(heavyPool, heavyAuth, heavyLoad("/scim/v2/heavy", ms))]);
      return { v, h, cpu: (cpuMs(child.pid) - cpu0) / (performance.now() - t0) };
    };
    let a: LoadResult;
    let b: { v: LoadResult; h: LoadResult; cpu: number };
    if (r % 2 === 0) { a = await runAlone(); b = await runBeside(); } else { b = await runBeside(); a = await runAlone(); }
    const [sa, sb, sh] = [summarise(a), summarise(b.v), summarise(b.h)];
    tableRow("victim alone", sa);
    tableRow(`victim beside ${HEAVY_CLIENTS} clients of worst-case filters on "heavy"`, sb);
    tableRow(`"heavy": worst-case filters over ${HEAVY_USERS.toLocaleString("en-US")} users`, sh);
    console.log(`  server CPU during the run beside (until the last heavy filter answered): ${fmt(b.cpu, 2)} CPUs; RSS now ${fmt(rssMiB(child.pid))} MiB`);
    alone.push(sa.p99);
    beside.push(sb.p99);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  console.log(`\nvictim p99 alone, per round: ${alone.map((x) => fmt(x)).join(", ")} ms; median ${fmt(median(alone))} ms`);
  console.log(`victim p99 beside the heavy filters, per round: ${beside.map((x) => fmt(x)).join(", ")} ms; median ${fmt(median(beside))} ms`);
  const pass = median(beside) < 50;
  console.log(`${pass ? "PASS" : "FAIL"}  victim p99 < 50 ms while "heavy" runs worst-case filters over ${HEAVY_USERS.toLocaleString("en-US")} users (median round): ${fmt(median(beside))} ms`);
}

runBench(main, cleanup, children);
