/**
 * bench/isolation — one directory's heavy work must not stall another (DESIGN.md §6 "Isolation: another
 * directory's p99 stays < 50 ms while one directory runs worst-case filters"; big groups likewise).
 *
 * One bridge in the `server` role (`node dist/main.js server`, built first) on a redis-server of the
 * bench's own (free port, slow log at 10 ms: the shared Redis is never reconfigured), two directories:
 *   heavy:  BENCH_HEAVY_USERS (50,000) users written straight into the store, two groups holding all of
 *           them ("All", read; "Cycle", emptied and refilled), one empty group ("Patched");
 *   victim: BENCH_VICTIM_USERS (1,000) users; BENCH_VICTIM_CLIENTS (10) clients of `userName eq` lookups
 *           and `GET /Users?count=1`.
 * In each of BENCH_ROUNDS (3) rounds: victim alone for BENCH_SECONDS (10) s, then beside each scenario —
 *   filters: BENCH_FILTER_CLIENTS (8) clients of worst-case filters (64 `co` terms, 4 KB, over every user);
 *   reads:   BENCH_READERS (12) clients of `GET /Groups/<All>` (every member);
 *   patches: BENCH_PATCH_CLIENTS (4) clients of PATCHes of BENCH_PATCH_OPS (5,000) operations, one member
 *            each (the server's scim.maxPatchOperations refuses them 400 tooMany unless
 *            BENCH_MAX_PATCH_OPS raises it);
 *   worker:  "Cycle" emptied by one PATCH, the worker's member delta applied (50,000 removes), refilled
 *            by PATCHes of 5,000, the delta applied again (50,000 adds) — repeated for BENCH_SECONDS, at
 *            least once. The delta runs in a child process (member-delta-child.ts): the store side of the
 *            worker's group reconcile, without the platform calls.
 * Per scenario it prints victim's p50/p99 next to its alone figures, the heavy side's own figures, the
 * Redis calls of ≥ 10 ms (SLOWLOG) and the longest, the 503s, and the server's peak RSS; then checks the
 * goals over the median round: victim p99 < 50 ms, no Redis call ≥ 10 ms, no 503, RSS < 200 MiB.
 * Run: `npm run bench:isolation` (quick: `BENCH_ROUNDS=1 BENCH_SECONDS=5 npm run bench:isolation`).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { Pool } from "undici";
import { hashToken } from "../../src/auth/token";
import { IMAGE_NODE_ARGS, freePort, rssMiB, startChild, type ServerChild } from "../scim/children";
import { seedGroup, seedUsers } from "../scim/fixtures";
import { runBench, envNumber as env } from "../scim/harness";
import { makePool, runLoad, summarise, type LoadResult } from "../scim/load";
import { fmt, median, tableHeader, tableRow } from "../scim/report";
import { startPrivateRedis, type PrivateRedis } from "./private-redis";
import { beside, bigPatchLoad, count503, filterLoad, groupReadLoad, removeAndReAdd, rssPeak, victimLoad } from "./scenarios";

const ROOT = path.resolve(__dirname, "../..");
const CHILD_JS = path.join(ROOT, "node_modules/.cache/scim-bridge-bench");
const HEAVY_USERS = env("BENCH_HEAVY_USERS", 50_000);
const VICTIM_USERS = env("BENCH_VICTIM_USERS", 1_000);
const VICTIM_CLIENTS = env("BENCH_VICTIM_CLIENTS", 10);
const FILTER_CLIENTS = env("BENCH_FILTER_CLIENTS", env("BENCH_HEAVY_CLIENTS", 8));
const READERS = env("BENCH_READERS", 12);
const PATCH_CLIENTS = env("BENCH_PATCH_CLIENTS", 4);
const PATCH_OPS = env("BENCH_PATCH_OPS", 5_000);
const SECONDS = env("BENCH_SECONDS", 10);
const ROUNDS = env("BENCH_ROUNDS", 3);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? "filters,reads,patches,worker").split(",");
const REFILL = 5_000;

const prefix = `bench-iso-${randomUUID()}`;
const tag = randomBytes(3).toString("hex");
const children: ServerChild[] = [];
const pools: Pool[] = [];
let redis: PrivateRedis | undefined;
let deltaChild: ChildProcess | undefined;

/** One scenario's figures in one round. */
interface Figures { p50: number; p99: number; slow: number; longestMs: number; e503: number; rss: number }

/** Asks the member-delta child to apply the group's delta; resolves with what it answered. */
function applyDelta(): Promise<{ ms: number; added: number; removed: number; rounds: number }> {
  return new Promise((resolve, reject) => {
    deltaChild!.once("message", (m: { error?: string; ms: number; added: number; removed: number; rounds: number }) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    deltaChild!.send("go");
  });
}

async function send(pool: Pool, auth: string, method: "PATCH", p: string, body: string): Promise<number> {
  const res = await pool.request({ method, path: p, body, headers: { authorization: auth, "content-type": "application/scim+json" } });
  await res.body.dump({ limit: Infinity });
  return res.statusCode;
}

async function cleanup(): Promise<void> {
  deltaChild?.kill("SIGTERM");
  await Promise.allSettled(children.map((c) => c.stop()));
  await Promise.allSettled(pools.map((p) => p.destroy()));
  await redis?.stop();
  redis = undefined;
}

async function main(): Promise<void> {
  redis = await startPrivateRedis();
  const r = redis;
  console.log(`bench/isolation — node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)} at start; private redis-server at ${r.url} (slowlog ≥ 10 ms)`);
  const build = spawnSync("npm", ["run", "-s", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  spawnSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "bench/scim/tsconfig.json"], { cwd: ROOT });

  let t0 = Date.now();
  const heavyIds = await seedUsers(r.redis, prefix, "heavy", 0, HEAVY_USERS, tag);
  await seedUsers(r.redis, prefix, "victim", 0, VICTIM_USERS, tag);
  const all = await seedGroup(r.redis, prefix, "heavy", "All", heavyIds, 200_000);
  const cycle = await seedGroup(r.redis, prefix, "heavy", "Cycle", heavyIds, 200_000);
  const patched = await seedGroup(r.redis, prefix, "heavy", "Patched", [], 200_000);
  // every heavy user is on the platform (a platform id, synced): the member delta has something to apply
  const P = `${prefix}:{heavy}:`;
  for (let i = 0; i < heavyIds.length; i += 1000) {
    const pipe = r.redis.pipeline();
    heavyIds.slice(i, i + 1000).forEach((id, k) => pipe.hset(`${P}s:u:${id}`, "pid", `p${i + k}`, "st", "synced"));
    await pipe.exec();
  }
  console.log(`seeded ${HEAVY_USERS.toLocaleString("en-US")} users and 2 groups of all of them into "heavy", ${VICTIM_USERS.toLocaleString("en-US")} users into "victim" in ${fmt((Date.now() - t0) / 1000)} s`);

  deltaChild = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "member-delta-child.ts")],
    { cwd: ROOT, env: { ...process.env, REDIS_URL: r.url, BENCH_PREFIX: prefix, BENCH_DIR: "heavy", BENCH_GROUP: cycle }, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  await new Promise<void>((resolve, reject) => { deltaChild!.once("message", () => resolve()); deltaChild!.once("exit", (c) => reject(new Error(`member-delta child exited ${c}`))); });
  t0 = Date.now();
  const first = await applyDelta();
  console.log(`worker side: first delta of "Cycle" applied ${first.added.toLocaleString("en-US")} adds in ${fmt(first.ms)} ms (${first.rounds} round(s))`);

  const tokens = { heavy: randomBytes(24).toString("base64url"), victim: randomBytes(24).toString("base64url") };
  const port = await freePort();
  const dir = (id: "heavy" | "victim") => ({ id, tokenHashes: [hashToken(tokens[id])], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "BENCH_UNUSED_PLATFORM_KEY" } });
  const maxOps = process.env.BENCH_MAX_PATCH_OPS ? { maxPatchOperations: Number(process.env.BENCH_MAX_PATCH_OPS) } : {};
  const config = {
    server: { host: "127.0.0.1", port, publicBaseUrl: `http://127.0.0.1:${port}` },
    redis: { url: r.url, keyPrefix: prefix }, log: { level: "warn" }, scim: { ...maxOps },
    directories: [dir("heavy"), dir("victim")],
  };
  const child = await startChild("ours", [...IMAGE_NODE_ARGS, path.join(ROOT, "dist/main.js"), "server"], { PATH: process.env.PATH, SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config) },
    port, "/healthz", path.join(CHILD_JS, "exit-with-parent.js"));
  children.push(child);
  const victimPool = makePool(child.origin, VICTIM_CLIENTS);
  const heavyPool = makePool(child.origin, Math.max(FILTER_CLIENTS, READERS, PATCH_CLIENTS, 2));
  pools.push(victimPool, heavyPool);
  const vAuth = `Bearer ${tokens.victim}`;
  const hAuth = `Bearer ${tokens.heavy}`;
  const victim = (ms: number) => victimLoad("/scim/v2/victim", VICTIM_CLIENTS, VICTIM_USERS, tag, ms);
  await runLoad(victimPool, vAuth, { ...victim(1000), concurrency: 1 }); // warm-up

  const H = "/scim/v2/heavy";
  const ms = SECONDS * 1000;
  const { clear, adds } = removeAndReAdd(heavyIds, REFILL);
  const scenarios: Record<string, { label: string; run: () => Promise<{ victim: LoadResult; heavy: LoadResult | string }> }> = {
    filters: { label: `${FILTER_CLIENTS} clients of worst-case filters over ${HEAVY_USERS.toLocaleString("en-US")} users`,
      run: () => beside(victimPool, vAuth, victim, runLoad(heavyPool, hAuth, filterLoad(H, FILTER_CLIENTS, ms))) },
    reads: { label: `${READERS} readers of a ${HEAVY_USERS.toLocaleString("en-US")}-member group`,
      run: () => beside(victimPool, vAuth, victim, runLoad(heavyPool, hAuth, groupReadLoad(H, READERS, all, HEAVY_USERS, ms))) },
    patches: { label: `${PATCH_CLIENTS} clients of ${PATCH_OPS.toLocaleString("en-US")}-operation PATCHes`,
      run: () => beside(victimPool, vAuth, victim, runLoad(heavyPool, hAuth, bigPatchLoad(H, PATCH_CLIENTS, patched, heavyIds, PATCH_OPS, ms))) },
    worker: { label: `worker: ${HEAVY_USERS.toLocaleString("en-US")}-member remove and re-add`,
      run: () => beside(victimPool, vAuth, victim, (async () => {
        const start = Date.now();
        const notes: string[] = [];
        do {
          const c0 = performance.now();
          const statuses = [await send(heavyPool, hAuth, "PATCH", `${H}/Groups/${cycle}`, clear)];
          const removed = await applyDelta();
          for (const body of adds) statuses.push(await send(heavyPool, hAuth, "PATCH", `${H}/Groups/${cycle}`, body));
          const added = await applyDelta();
          const bad = statuses.filter((s) => s !== 204);
          if (removed.removed !== HEAVY_USERS || added.added !== HEAVY_USERS || bad.length) throw new Error(`cycle went wrong: removed ${removed.removed}, added ${added.added}, statuses ${bad.join(",")}`);
          notes.push(`cycle ${fmt(performance.now() - c0, 0)} ms (deltas ${fmt(removed.ms, 0)} + ${fmt(added.ms, 0)} ms)`);
        } while (Date.now() - start < ms);
        return notes.join("; ");
      })()) },
  };

  const results = new Map<string, Figures[]>();
  const alone: Figures[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    tableHeader(`round ${round + 1} of ${ROUNDS}: "victim" (${VICTIM_CLIENTS} clients: userName eq lookups and GET /Users?count=1)`);
    const stopRss = rssPeak(() => rssMiB(child.pid));
    await r.resetSlowLog();
    const a = await runLoad(victimPool, vAuth, victim(ms));
    const sa = summarise(a);
    const slowAlone = await r.slowCalls(prefix);
    alone.push({ p50: sa.p50, p99: sa.p99, slow: slowAlone.count, longestMs: slowAlone.longestUs / 1000, e503: count503(a), rss: stopRss() });
    tableRow("victim alone", sa);
    console.log(`  Redis calls ≥ 10 ms: ${slowAlone.count}; machine load average ${os.loadavg()[0].toFixed(1)} (other work on the machine disturbs every figure)`);
    for (const name of SCENARIOS) {
      const s = scenarios[name];
      if (!s) throw new Error(`unknown scenario ${name}: BENCH_SCENARIOS takes ${Object.keys(scenarios).join(",")}`);
      const peak = rssPeak(() => rssMiB(child.pid));
      await r.resetSlowLog();
      const out = await s.run();
      const rss = peak();
      const slow = await r.slowCalls(prefix);
      const sv = summarise(out.victim);
      tableRow(`victim beside ${s.label}`, sv);
      if (typeof out.heavy === "string") console.log(`  "heavy": ${out.heavy}`);
      else {
        tableRow(`"heavy" itself`, summarise(out.heavy));
        if (out.heavy.errors.size) console.log(`  "heavy" answers other than expected: ${[...out.heavy.errors].map(([k, v]) => `${k} × ${v}`).join(", ")}`);
      }
      const e503 = count503(out.victim, ...(typeof out.heavy === "string" ? [] : [out.heavy]));
      console.log(`  Redis calls ≥ 10 ms: ${slow.count}${slow.count ? `, longest ${fmt(slow.longestUs / 1000)} ms (${slow.longest})` : ""}; 503s: ${e503}; server RSS peak ${fmt(rss)} MiB; load average ${os.loadavg()[0].toFixed(1)}`);
      const list = results.get(name) ?? [];
      list.push({ p50: sv.p50, p99: sv.p99, slow: slow.count, longestMs: slow.longestUs / 1000, e503, rss });
      results.set(name, list);
    }
  }

  console.log(`\nmedian of ${ROUNDS} round(s)            victim p50 / p99 ms      (alone ${fmt(median(alone.map((x) => x.p50)))} / ${fmt(median(alone.map((x) => x.p99)))})   Redis ≥10 ms (longest)   503s   RSS MiB`);
  let pass = true;
  for (const [name, fs] of results) {
    const m = (k: keyof Figures) => median(fs.map((x) => x[k]));
    const ok = m("p99") < 50 && m("slow") === 0 && fs.every((x) => x.e503 === 0) && m("rss") < 200;
    pass &&= ok;
    console.log(`  ${(ok ? "PASS " : "FAIL ") + name.padEnd(28)}${`${fmt(m("p50"))} / ${fmt(m("p99"))}`.padStart(18)}${`${fmt(m("slow"), 0)} (${fmt(m("longestMs"))} ms)`.padStart(40)}${String(fs.reduce((n, x) => n + x.e503, 0)).padStart(7)}${fmt(m("rss")).padStart(10)}`);
  }
  console.log(`${pass ? "PASS" : "FAIL"}  goals: victim p99 < 50 ms, no Redis call ≥ 10 ms, no 503, server RSS < 200 MiB in every scenario (median round)`);
}

runBench(main, cleanup, children);
