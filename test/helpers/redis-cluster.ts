/**
 * A local Redis Cluster for tests: 3 masters + 3 replicas of `redis-server --cluster-enabled yes` on free
 * loopback ports, each in its own temp dir, joined with `redis-cli --cluster create … --cluster-replicas 1
 * --cluster-yes`; and a Sentinel set-up (1 master, 1 replica, 1 sentinel). Every process is a child of
 * the ProcessSet given, stopped by PID with it (`set.killAll()`).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "./free-port";
import { untilRedisAnswers, type Proc, type ProcessSet } from "./processes";

const run = promisify(execFile);
const SERVER = process.env.REDIS_SERVER_BIN || "redis-server";
const CLI = process.env.REDIS_CLI_BIN || "redis-cli";

export interface ClusterNodeProcess {
  port: number;
  proc: Proc;
  /** Starts it again (after it was killed) on the same port, data dir and options; `proc` is then the new process. */
  restart(): Promise<void>;
}

export interface LocalCluster {
  nodes: ClusterNodeProcess[];
  /** `127.0.0.1:<port>` of every node (seed list). */
  seeds: string[];
  /** Port of the master that serves `key`'s slot now. */
  masterOf(key: string): Promise<number>;
  /** Waits until every slot is served and the cluster says ok (after a failover, too). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** A master's replication offset and each of its replicas' (what a replica would hold if promoted now). */
  replicationOf(masterPort: number): Promise<string>;
  /** Ports of a master's replicas. */
  replicasOf(masterPort: number): Promise<number[]>;
}

/** A redis-server (no persistence) on a free loopback port with `args` added: a cluster node, or a plain one (bench/cluster-client). */
export async function startServer(set: ProcessSet, name: string, args: string[]): Promise<ClusterNodeProcess> {
  const port = await freePort();
  const dir = set.tempDir(name);
  const launch = async () => {
    const proc = set.spawn(`${name}:${port}`, SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no",
      "--maxmemory-policy", "noeviction", ...args]);
    await untilRedisAnswers(proc, port, name, 15000);
    return proc;
  };
  const node: ClusterNodeProcess = {
    port, proc: await launch(),
    restart: async () => {
      if (node.proc.running) throw new Error(`${name}:${port} is still running`);
      node.proc = await launch();
    },
  };
  return node;
}

/** Ports of the replicas a master's INFO replication lists. */
function replicasIn(info: string): number[] {
  return [...info.matchAll(/^slave\d+:ip=[^,]+,port=(\d+)/gm)].map((m) => Number(m[1]));
}

/** One command on one node (a short-lived connection). */
async function onNode<T>(port: number, fn: (r: Redis) => Promise<T>): Promise<T> {
  const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

/**
 * Starts `masters` masters (3 by default) with `replicas` replicas each (default 1: 6 nodes) and joins them.
 * One master (bench/scale's BENCH_CLUSTER_MASTERS=1, no replicas) holds every slot: cluster mode with the
 * Redis work in one process, as on a single Redis. `redis-cli --cluster create` wants at least 3 masters,
 * so that node takes its slots itself (CLUSTER ADDSLOTSRANGE) and announces its address: a node learns
 * its own address only from the nodes that meet it, and a node that meets none would tell the clients
 * (CLUSTER SLOTS) an empty one.
 */
export async function startRedisCluster(set: ProcessSet, nodeTimeoutMs = 2000, replicas = 1, masters = 3): Promise<LocalCluster> {
  if (masters !== 3 && !(masters === 1 && replicas === 0)) throw new Error(`a local cluster has 3 masters, or 1 without replicas (asked: ${masters} × ${replicas})`);
  const nodes = await Promise.all(Array.from({ length: masters * (1 + replicas) }, (_, i) => startServer(set, `redis-cluster-${i}`, [
    "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", String(nodeTimeoutMs),
    ...(masters === 1 ? ["--cluster-announce-ip", "127.0.0.1"] : []),
  ])));
  const seeds = nodes.map((n) => `127.0.0.1:${n.port}`);
  if (masters === 1) await onNode(nodes[0].port, (r) => r.call("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
  else await run(CLI, ["--cluster", "create", ...seeds, "--cluster-replicas", String(replicas), "--cluster-yes"], { timeout: 30000 });
  const alive = () => nodes.filter((n) => n.proc.running);

  const c: LocalCluster = {
    nodes, seeds,
    masterOf: async (key) => {
      const live = alive()[0];
      return onNode(live.port, async (r) => {
        const slot = Number(await r.call("CLUSTER", "KEYSLOT", key));
        const ranges = (await r.call("CLUSTER", "SLOTS")) as Array<[number, number, [string, number, string]]>;
        const range = ranges.find(([lo, hi]) => slot >= lo && slot <= hi);
        if (!range) throw new Error(`no node serves slot ${slot}`);
        return Number(range[2][1]);
      });
    },
    replicationOf: async (masterPort) => {
      const field = (info: string, name: string) => new RegExp(`^${name}:(\\S+)`, "m").exec(info)?.[1] ?? "?";
      const info = await onNode(masterPort, (r) => r.info("replication"));
      const replicas = replicasIn(info);
      const seen = await Promise.all(replicas.map(async (port) => {
        const ri = await onNode(port, (r) => r.info("replication")).catch((err: Error) => err.message);
        return `replica :${port} link ${field(ri, "master_link_status")}, offset ${field(ri, "slave_repl_offset")}`;
      }));
      return [`master :${masterPort} offset ${field(info, "master_repl_offset")}`, ...seen].join("; ");
    },
    replicasOf: async (masterPort) => replicasIn(await onNode(masterPort, (r) => r.info("replication"))),
    waitHealthy: async (timeoutMs = 30000) => {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const states = await Promise.all(alive().map((n) => onNode(n.port, async (r) => String(await r.call("CLUSTER", "INFO"))).catch(() => "")));
        if (states.every((s) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s))) return;
        if (Date.now() > end) throw new Error(`cluster not healthy within ${timeoutMs} ms:\n${states.join("\n---\n")}`);
        await sleep(100);
      }
    },
  };
  await c.waitHealthy();
  // every replica has finished its first sync (a failover test needs replicas that hold the data)
  const end = Date.now() + 30000;
  for (;;) {
    const roles = await Promise.all(nodes.map((n) => onNode(n.port, (r) => r.info("replication"))));
    const replicasUp = roles.filter((s) => /role:slave/.test(s) && /master_link_status:up/.test(s)).length;
    if (replicasUp === masters * replicas) break;
    if (Date.now() > end) throw new Error(`replicas not in sync:\n${roles.join("\n---\n")}`);
    await sleep(100);
  }
  // ...and receives its master's writes. A link that says "up" is not enough: in 3 of 32 runs of the
  // failover test the replica had read nothing of its master's stream (slave_repl_offset 0 against 147 KB
  // written) when the master was killed a few seconds later, and the promoted replica held none of the
  // push. So each master takes one write and WAITs until its replicas have it.
  if (replicas > 0) await Promise.all(nodes.map((n) => onNode(n.port, async (r) => {
    if (!/role:master/.test(await r.info("replication"))) return;
    const [[lo, hi]] = ((await r.call("CLUSTER", "SLOTS")) as Array<[number, number, [string, number]]>).filter(([, , m]) => Number(m[1]) === n.port);
    let key = "";
    for (let i = 0; !key; i++) {
      const slot = Number(await r.call("CLUSTER", "KEYSLOT", `replication-check-${i}`));
      if (slot >= lo && slot <= hi) key = `replication-check-${i}`;
    }
    await r.set(key, "1");
    const acked = Number(await r.call("WAIT", String(replicas), "15000"));
    await r.del(key);
    if (acked < replicas) throw new Error(`master :${n.port}: ${acked} of ${replicas} replicas acknowledged a write within 15 s`);
  })));
  return c;
}

export interface LocalSentinel {
  master: ClusterNodeProcess;
  replica: ClusterNodeProcess;
  sentinel: { port: number; proc: Proc };
  /** `127.0.0.1:<port>` of the sentinel. */
  sentinels: string[];
  masterName: string;
  /** Port of the master the sentinel names now. */
  currentMaster(): Promise<number>;
}

/** A master, its replica and one sentinel (quorum 1) watching it as `mymaster`. */
export async function startSentinel(set: ProcessSet, downAfterMs = 1000): Promise<LocalSentinel> {
  const masterName = "mymaster";
  const master = await startServer(set, "redis-sentinel-master", []);
  const replica = await startServer(set, "redis-sentinel-replica", ["--replicaof", "127.0.0.1", String(master.port)]);
  const port = await freePort();
  const dir = set.tempDir("redis-sentinel");
  const conf = path.join(dir, "sentinel.conf");
  fs.writeFileSync(conf, [
    `port ${port}`, "bind 127.0.0.1", `dir ${dir}`,
    `sentinel monitor ${masterName} 127.0.0.1 ${master.port} 1`,
    `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
    `sentinel failover-timeout ${masterName} 5000`,
    `sentinel parallel-syncs ${masterName} 1`, "",
  ].join("\n"));
  const proc = set.spawn(`redis-sentinel:${port}`, SERVER, [conf, "--sentinel"]);
  const end = Date.now() + 15000;
  const s: LocalSentinel = {
    master, replica, sentinel: { port, proc }, sentinels: [`127.0.0.1:${port}`], masterName,
    currentMaster: () => onNode(port, async (r) => Number(((await r.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName)) as string[])[1])),
  };
  // ready once the sentinel knows the master and has found its replica
  for (;;) {
    const known = await onNode(port, async (r) => (await r.call("SENTINEL", "REPLICAS", masterName)) as unknown[]).catch(() => []);
    if (known.length === 1) break;
    if (!proc.running) throw new Error(`sentinel exited at start:\n${proc.tail()}`);
    if (Date.now() > end) throw new Error(`sentinel did not find the replica:\n${proc.tail()}`);
    await sleep(100);
  }
  return s;
}
