/**
 * `npm run bench:redis-cost` (not a test): Redis's own work for one 256-member group PATCH,
 * counted in CPU instructions by valgrind's callgrind, split into the request's write script (writeGroup)
 * and the background drain that applies it to the reverse index (drainMemberOf); side by side for a large
 * group (scim.largeGroupMembers: not in the reverse index, what the server does with a group this size) and
 * the same group kept in the reverse index (what it did before large groups, and still does for a group
 * past the directory's scim.largeGroupsPerDirectory).
 *
 * Why instructions: this 2-core VM's speed moves by up to 2× from one run to the next (bench/scim's Redis
 * CPU per PATCH: 0.85–0.90 ms one day, 1.83–2.00 ms another), so a timed A/B of a change to the store's
 * Lua or key layout needs many alternating rounds to see 10%. An instruction count is the same for the same
 * build and inputs whatever else the machine does (rounds of one build agree within ~2%), so running this on
 * two checkouts compares them. What it does not see: memory stalls. A layout that trades instructions for
 * pointer chasing (a skiplist per directory, say) can count fewer instructions and still take longer:
 * confirm a change with `npm run bench:scim` (its "Redis, all of its CPU" line).
 *
 * It starts a private redis-server under `valgrind --tool=callgrind` (instrumentation off until measured)
 * on a free loopback port, seeds BENCH_USERS users and two groups of BENCH_GROUP_MEMBERS of them straight
 * into the store (bench/scim's fixtures), one large and one indexed, then per round and per group:
 * BENCH_PATCHES PATCHes that each add 256 non-members, their drain, as many PATCHes that remove the same
 * members, and their drain, each phase counted on its own. The store's automatic drain after a write is
 * held back (it runs in a phase of its own), so the queue holds BENCH_PATCHES entries, below the
 * back-pressure limit where a write drains too. Prints per round and group the instructions per PATCH of
 * each phase and their sum, and the ratio large ÷ indexed; then the medians of the rounds.
 * Needs `valgrind` and `redis-server` on PATH. Env: BENCH_USERS (20000), BENCH_GROUP_MEMBERS (15000),
 * BENCH_PATCHES (16), BENCH_ROUNDS (3).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { GroupStore, LARGE_GROUPS, type LargeGroups } from "../../src/store";
import { freePort } from "../../test/helpers/free-port";
import { ProcessSet, untilRedisAnswers } from "../../test/helpers/processes";
import { seedGroup, seedUsers } from "../scim/fixtures";
import { envNumber } from "../scim/harness";
import { median } from "../scim/report";

const USERS = envNumber("BENCH_USERS", 20000);
const GROUP_MEMBERS = envNumber("BENCH_GROUP_MEMBERS", 15000);
const PATCHES = envNumber("BENCH_PATCHES", 16);
const ROUNDS = envNumber("BENCH_ROUNDS", 3);
const SIZE = 256;
/** Millions of instructions, two decimals. */
const M = (n: number) => `${(n / 1e6).toFixed(2)} M`;
const PREFIX = "bench-redis-cost";
const DIRECTORY = "d1";

const PHASES = ["add: writeGroup", "add: drain", "remove: writeGroup", "remove: drain"] as const;
/** The two groups: the server's defaults make this size large; the other is never large. */
const VARIANTS: Array<{ label: string; large: LargeGroups }> = [
  { label: "large group", large: LARGE_GROUPS },
  { label: "indexed group", large: { members: Number.MAX_SAFE_INTEGER, perDirectory: 0 } },
];
type Phase = (typeof PHASES)[number];

/** The mean of an add and a remove PATCH, each with its drain. */
const perPatch = (row: Record<Phase, number>) => PHASES.reduce((sum, p) => sum + row[p], 0) / 2;

function need(command: string): void {
  try {
    execFileSync(command, ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error(`${command} is not on PATH: this bench runs redis-server under valgrind (Debian: apt-get install valgrind redis-server)`);
  }
}

/** Counts Redis's instructions while `fn` runs (callgrind_control switches instrumentation on the pid). */
async function counted(pid: number, outDir: string, fn: () => Promise<unknown>): Promise<number> {
  execFileSync("callgrind_control", ["--instr=on", String(pid)], { stdio: "ignore" });
  await fn();
  execFileSync("callgrind_control", ["--instr=off", String(pid)], { stdio: "ignore" });
  // a dump writes what was counted since the last one into a new file and zeroes the counters
  const before = new Set(fs.readdirSync(outDir));
  execFileSync("callgrind_control", ["--dump", String(pid)], { stdio: "ignore" });
  const file = fs.readdirSync(outDir).find((f) => f.startsWith("callgrind.out") && !before.has(f));
  if (!file) throw new Error("callgrind wrote no dump");
  const totals = /^totals: (\d+)/m.exec(fs.readFileSync(path.join(outDir, file), "utf8"));
  if (!totals) throw new Error(`no totals in ${file}`);
  return Number(totals[1]);
}

async function main(): Promise<void> {
  need("valgrind");
  need("redis-server");
  if (USERS - GROUP_MEMBERS < SIZE * PATCHES) throw new Error(`BENCH_USERS must exceed BENCH_GROUP_MEMBERS by ${SIZE} × BENCH_PATCHES (the non-members added)`);
  const set = new ProcessSet();
  let client: Redis | undefined;
  try {
    const port = await freePort();
    const dir = set.tempDir("redis-cost");
    const proc = set.spawn("redis-server (callgrind)", "valgrind", [
      "--tool=callgrind", "--instr-atstart=no", `--callgrind-out-file=${path.join(dir, "callgrind.out")}`,
      "redis-server", "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no", "--hz", "1",
    ]);
    await untilRedisAnswers(proc, port, "redis-server under valgrind", 60000);
    const redis = new Redis({ port, host: "127.0.0.1" });
    client = redis;
    const version = /redis_version:(\S+)/.exec(await redis.info("server"))?.[1];
    console.log(`bench/redis-cost — Redis ${version} under callgrind; ${USERS.toLocaleString("en-US")} users, two groups of ${GROUP_MEMBERS.toLocaleString("en-US")}; per round ${PATCHES} PATCHes adding ${SIZE} non-members each, then ${PATCHES} removing them`);

    const t0 = Date.now();
    const ids = await seedUsers(redis, PREFIX, DIRECTORY, 0, USERS, "cost");
    const groups: Array<(typeof VARIANTS)[number] & { group: string; store: GroupStore }> = [];
    for (const v of VARIANTS) {
      const group = await seedGroup(redis, PREFIX, DIRECTORY, v.label, ids.slice(0, GROUP_MEMBERS), 200000, v.large);
      const store = new GroupStore(redis, PREFIX, 200000, undefined, undefined, v.large);
      // the store asks for a drain after each member write; here the drain is a phase of its own
      store.memberOf.request = () => undefined;
      groups.push({ ...v, group, store });
    }
    await groups[0].store.memberOf.drain(DIRECTORY);
    const large = await redis.smembers(groups[0].store.keys(DIRECTORY).largeGroups);
    if (JSON.stringify(large) !== JSON.stringify([groups[0].group])) throw new Error(`expected only the first group to be large, found ${large.length}`);
    console.log(`(seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s, not counted)\n`);

    const nonMembers = ids.slice(GROUP_MEMBERS);
    const batches = Array.from({ length: PATCHES }, (_, k) => nonMembers.slice(k * SIZE, (k + 1) * SIZE).map((value) => ({ value })));
    const patch = async (g: (typeof groups)[number], op: "add" | "remove") => {
      for (const members of batches) {
        const r = await g.store.write(DIRECTORY, g.group, { mode: "update", memberOps: [{ op, members }] });
        if (!r.changed) throw new Error(`PATCH ${op} changed nothing`);
      }
    };
    const drain = () => groups[0].store.memberOf.drain(DIRECTORY);
    // untimed warm-up: scripts loaded, the first key creations done
    for (const g of groups) { await patch(g, "add"); await drain(); await patch(g, "remove"); await drain(); }

    const rounds: Array<Array<Record<Phase, number>>> = [];
    const per = (n: number) => n / PATCHES;
    for (let r = 0; r < ROUNDS; r++) {
      const row: Array<Record<Phase, number>> = [];
      // the groups' order alternates by round
      for (const g of r % 2 ? [...groups].reverse() : groups) {
        const phases = {
          "add: writeGroup": per(await counted(proc.pid, dir, () => patch(g, "add"))),
          "add: drain": per(await counted(proc.pid, dir, drain)),
          "remove: writeGroup": per(await counted(proc.pid, dir, () => patch(g, "remove"))),
          "remove: drain": per(await counted(proc.pid, dir, drain)),
        };
        if (await redis.hlen(g.store.keys(DIRECTORY).groupMembers(g.group)) !== GROUP_MEMBERS) throw new Error("the group's size moved: a PATCH did not apply");
        row[groups.indexOf(g)] = phases;
        console.log(`round ${r + 1}, ${g.label.padEnd(13)}: ${PHASES.map((p) => `${p} ${M(phases[p])}`).join(", ")}; mean per PATCH, drain included, ${M(perPatch(phases))}`);
      }
      rounds.push(row);
      console.log(`round ${r + 1}: large ÷ indexed ${(perPatch(row[0]) / perPatch(row[1])).toFixed(3)}`);
    }
    console.log("\nmedian of the rounds, Redis instructions per 256-member PATCH:");
    console.log(`  ${"".padEnd(20)} ${groups.map((g) => g.label.padStart(14)).join("")}`);
    for (const p of PHASES) console.log(`  ${p.padEnd(20)} ${groups.map((_, i) => M(median(rounds.map((x) => x[i][p]))).padStart(14)).join("")}`);
    console.log(`  ${"mean per PATCH".padEnd(20)} ${groups.map((_, i) => M(median(rounds.map((x) => perPatch(x[i])))).padStart(14)).join("")}`);
    groups.forEach((g, i) => {
      const drains = median(rounds.map((x) => (x[i]["add: drain"] + x[i]["remove: drain"]) / 2));
      console.log(`  ${g.label}: the reverse-index drain is ${(100 * drains / median(rounds.map((x) => perPatch(x[i])))).toFixed(1)}% of it`);
    });
    console.log(`  large ÷ indexed, median of the per-round ratios: ${median(rounds.map((x) => perPatch(x[0]) / perPatch(x[1]))).toFixed(3)}`);
  } finally {
    client?.disconnect();
    await set.killAll();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
