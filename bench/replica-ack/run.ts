/**
 * `npm run bench:replica-ack` (not a test): what `redis.replicaAck` (REDIS_REPLICA_ACK=1) costs SCIM
 * writes. A private master and its replica on free loopback ports (stopped at the end); the same
 * UserStore creates users with and without the acknowledgement (store/replica-ack.ts), 50 writes in
 * flight, in BENCH_ROUNDS (3) rounds whose order alternates. Prints per round writes/s, p50 and p99 of a
 * write (ms) and how many writes one WAIT covered, then the median of the per-round throughput ratios.
 * The store alone, without HTTP: the difference is the WAIT's. Env: BENCH_WRITES (6000 per mode and round).
 */
import { Redis } from "ioredis";
import { ReplicaAck, UserStore, createStoreConnection, waitReady } from "../../src/store";
import { ProcessSet } from "../../test/helpers/processes";
import { startServer } from "../../test/helpers/redis-cluster";
import { envNumber } from "../scim/harness";
import { median } from "../scim/report";

const WRITES = envNumber("BENCH_WRITES", 6000);
const ROUNDS = envNumber("BENCH_ROUNDS", 3);
const IN_FLIGHT = 50;
const PREFIX = "bench-replica-ack";

interface Row { writesPerSecond: number; p50: number; p99: number; writesPerWait: number }

async function waits(master: Redis): Promise<number> {
  return Number(/cmdstat_wait:calls=(\d+)/.exec(await master.info("commandstats"))?.[1] ?? 0);
}

async function measure(store: UserStore, master: Redis, first: number): Promise<Row> {
  const latencies: number[] = [];
  let next = 0;
  const waitsBefore = await waits(master);
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < WRITES) {
      const id = `u${first + next++}`;
      const t = performance.now();
      await store.write("d1", id, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `${id}@example.com`, active: true }, "create");
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const waited = (await waits(master)) - waitsBefore;
  return {
    writesPerSecond: WRITES / seconds,
    p50: latencies[Math.floor(WRITES * 0.5)],
    p99: latencies[Math.floor(WRITES * 0.99)],
    writesPerWait: waited ? WRITES / waited : 0,
  };
}

async function main(): Promise<void> {
  const set = new ProcessSet();
  try {
    const master = await startServer(set, "redis-bench-master", []);
    await startServer(set, "redis-bench-replica", ["--replicaof", "127.0.0.1", String(master.port)]);
    const onMaster = new Redis({ host: "127.0.0.1", port: master.port });
    await onMaster.set(`${PREFIX}:ready`, "1");
    if (Number(await onMaster.call("WAIT", 1, 15000)) < 1) throw new Error("the replica did not acknowledge a write within 15 s");
    const settings = { url: `redis://127.0.0.1:${master.port}` };
    const store = createStoreConnection(settings);
    await waitReady(store);
    const ack = new ReplicaAck(settings, { replicas: 1, timeoutMs: 2000 });
    await waitReady(ack.connection);
    const modes = { off: new UserStore(store, PREFIX), on: new UserStore(store, PREFIX, 10000, ack) };
    await measure(modes.on, onMaster, 0); // warm-up
    let first = WRITES;
    const ratios: number[] = [];
    console.log("round  mode  writes/s    p50 ms   p99 ms   writes per WAIT");
    for (let round = 1; round <= ROUNDS; round++) {
      const rows: Partial<Record<"on" | "off", Row>> = {};
      for (const mode of round % 2 ? (["off", "on"] as const) : (["on", "off"] as const)) {
        rows[mode] = await measure(modes[mode], onMaster, first);
        first += WRITES;
        const r = rows[mode]!;
        console.log(`${String(round).padStart(5)}  ${mode.padEnd(4)}  ${r.writesPerSecond.toFixed(0).padStart(8)}  ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)}   ${mode === "on" ? r.writesPerWait.toFixed(1) : "-"}`);
      }
      ratios.push(rows.on!.writesPerSecond / rows.off!.writesPerSecond);
    }
    console.log(`throughput with ÷ without the acknowledgement, per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${median(ratios).toFixed(2)}`);
    store.disconnect();
    await ack.close();
    onMaster.disconnect();
  } finally {
    await set.killAll();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
