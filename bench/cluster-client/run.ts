/**
 * `npm run bench:cluster-client` (not a test): the client CPU one command costs the bridge on Redis
 * Cluster, against ioredis's plain `Cluster` (the baseline) and a plain single-node `Redis` (reference),
 * in one process, side by side. The command is a two-key script with keys shaped like the bridge's
 * (`<prefix>:{<dir>}:…`, ~90 characters, 1,000 directories), sent by 64 concurrent callers.
 *
 * It starts a private redis-server and a one-master cluster (test/helpers/redis-cluster.ts; one master, so
 * the Redis side is the same process either way), both on free loopback ports and stopped at the end.
 * BENCH_ROUNDS (5) rounds, the order of the three clients rotating by round, each after an untimed
 * warm-up; prints µs of client CPU per command per round and the median of the per-round ratios.
 * Env: BENCH_COMMANDS (200000 per client per round), BENCH_ROUNDS (5).
 */
import { Cluster, Redis } from "ioredis";
import { createQueueConnection, waitReady, type RedisConnection } from "../../src/store";
import { ProcessSet } from "../../test/helpers/processes";
import { startRedisCluster, startServer } from "../../test/helpers/redis-cluster";
import { envNumber } from "../scim/harness";
import { median } from "../scim/report";

const COMMANDS = envNumber("BENCH_COMMANDS", 200_000);
const ROUNDS = envNumber("BENCH_ROUNDS", 5);
const CALLERS = 64;
const PREFIX = "bench-cluster-client-fde9756a-5bcf-493f-aaf8-a42c33f0da48";
const SCRIPT = "redis.call('HSET', KEYS[1], 'f', ARGV[1]); return redis.call('ZADD', KEYS[2], ARGV[1], ARGV[1])";

type Scripted = RedisConnection & { twoKeys(a: string, b: string, v: string): Promise<unknown> };

function scripted(r: RedisConnection): Scripted {
  r.defineCommand("twoKeys", { numberOfKeys: 2, lua: SCRIPT });
  return r as Scripted;
}

/** Client CPU per command (µs) for `n` commands from CALLERS concurrent callers. */
async function measure(r: Scripted, n: number): Promise<number> {
  let next = 0;
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CALLERS }, async () => {
    while (next < n) {
      const i = next++;
      const dir = `d${String(i % 1000).padStart(4, "0")}`;
      await r.twoKeys(`${PREFIX}:{${dir}}:s:u:2e9de570-0391-48f3-a2b7-${String(i).padStart(12, "0")}`, `${PREFIX}:{${dir}}:z`, String(i));
    }
  }));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

async function main(): Promise<void> {
  const set = new ProcessSet();
  const clients: Array<{ name: string; r: Scripted }> = [];
  try {
    const node = await startServer(set, "redis-single", []);
    const cluster = await startRedisCluster(set, 2000, 0, 1);
    const seeds = cluster.seeds.map((s) => ({ host: "127.0.0.1", port: Number(s.split(":")[1]) }));
    clients.push(
      { name: "ours (bridge Cluster)", r: scripted(createQueueConnection({ url: "redis://", clusterNodes: cluster.seeds })) },
      { name: "ioredis Cluster", r: scripted(new Cluster(seeds)) },
      { name: "ioredis Redis, single node", r: scripted(new Redis({ host: "127.0.0.1", port: node.port })) },
    );
    for (const c of clients) {
      await waitReady(c.r, 10000);
      await measure(c.r, Math.min(COMMANDS, 20_000)); // warm-up: JIT, script load, slot table
    }
    console.log(`bench/cluster-client — node ${process.version}; ${COMMANDS} two-key scripts per client per round, ${CALLERS} callers, ${ROUNDS} rounds`);
    const perRound: Record<string, number[]> = Object.fromEntries(clients.map((c) => [c.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = clients.map((_, i) => clients[(i + round) % clients.length]);
      const line: string[] = [];
      for (const c of order) {
        const us = await measure(c.r, COMMANDS);
        perRound[c.name].push(us);
        line.push(`${c.name} ${us.toFixed(2)}`);
      }
      console.log(`  round ${round + 1}: µs of client CPU per command: ${line.join(", ")}`);
    }
    const [ours, plain, single] = clients.map((c) => perRound[c.name]);
    const ratio = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]));
    console.log(`median per command: ours ${median(ours).toFixed(2)} µs, ioredis Cluster ${median(plain).toFixed(2)} µs, single node ${median(single).toFixed(2)} µs`);
    console.log(`ours ÷ ioredis Cluster (median of per-round ratios): ${ratio(ours, plain).toFixed(2)}×; ours ÷ single node: ${ratio(ours, single).toFixed(2)}×`);
  } finally {
    for (const c of clients) c.r.disconnect();
    await set.killAll();
  }
}

main().catch((err) => {
  console.error(`bench failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
