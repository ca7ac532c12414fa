/**
 * The `cluster` project really runs on the cluster: the helpers' connection is an ioredis Cluster, and one
 * store's directories spread over the three masters, each directory's keys (hash tag `{<dir>}`) in one slot.
 * A connection, and its copies (what BullMQ makes for each Worker's blocking connection), hold no
 * connection to a replica, although the seed list names the replicas too.
 */
import { randomBytes } from "node:crypto";
import { Cluster, Redis } from "ioredis";
import { UserStore, createQueueConnection, createStoreConnection, nodeFor, waitReady, type RedisConnection } from "../../src/store";
import { slotOf } from "../../src/store/key-slot";
import { SLOT_CASES } from "../helpers/key-slot-cases";
import { waitFor } from "../helpers/sync-env";
import { TEST_CLUSTER_NODES, TEST_REDIS, cleanPrefix, testPrefix } from "../helpers/redis";

let redis: RedisConnection;
const prefix = testPrefix();

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis, 10000);
});
afterAll(async () => {
  await cleanPrefix(redis, prefix);
  redis.disconnect();
});

describe("the cluster project's Redis", () => {
  it("should be a 6-node cluster reached through ioredis Cluster, with directories spread over its masters", async () => {
    expect(TEST_CLUSTER_NODES).toHaveLength(6);
    expect(redis).toBeInstanceOf(Cluster);
    const cluster = redis as Cluster;
    const users = new UserStore(redis, prefix);
    const dirs = Array.from({ length: 12 }, (_, i) => `dir-${i}`);
    for (const d of dirs) await users.write(d, "u1", { userName: `${d}@example.com` }, "create");
    const holders = new Set<string>();
    for (const master of cluster.nodes("master")) {
      // the directories' keys (the outbox signal, `<prefix>:outbox:news`, is one key of the whole bridge)
      const [, keys] = await master.scan("0", "MATCH", `${prefix}:{*`, "COUNT", 10000);
      for (const k of keys) holders.add(`${master.options.port}`);
      // every key a node holds for a directory: that directory's keys are all there (one slot)
      const byDir = new Map<string, number>();
      for (const k of keys) byDir.set(/\{([^}]+)\}/.exec(k)![1], (byDir.get(/\{([^}]+)\}/.exec(k)![1]) ?? 0) + 1);
      for (const n of byDir.values()) expect(n).toBeGreaterThanOrEqual(3); // user hash, users zset, indexes, outbox…
    }
    expect(holders.size).toBeGreaterThanOrEqual(2);
  });
});

/** A queue connection of the test's own, named `name` (CLIENT SETNAME), once it answers. */
async function ownConnection(name: string): Promise<Cluster> {
  const c = createQueueConnection(TEST_REDIS, name) as Cluster;
  await waitReady(c, 10000);
  return c;
}

/** MOVED answers the masters of `c` have given so far (INFO errorstats). */
async function movedSoFar(c: Cluster): Promise<number> {
  let n = 0;
  for (const master of c.nodes("master")) n += Number(/errorstat_MOVED:count=(\d+)/.exec(await master.info("errorstats"))?.[1] ?? 0);
  return n;
}

describe("the slot a cluster connection routes a command by", () => {

  it("should be the slot Redis gives the key (CLUSTER KEYSLOT)", async () => {
    const master = (redis as Cluster).nodes("master")[0];
    for (const key of SLOT_CASES) expect([key, slotOf(key)]).toEqual([key, Number(await master.call("CLUSTER", "KEYSLOT", key))]);
  });

  it("should send each command to the master of its key's slot the first time (no MOVED)", async () => {
    const before = await movedSoFar(redis as Cluster);
    const keys = Array.from({ length: 60 }, (_, i) => `${prefix}:{route-${i}}:u:${i}`);
    await Promise.all(keys.map((k, i) => redis.set(k, String(i))));
    expect(await Promise.all(keys.map((k) => redis.get(k)))).toEqual(keys.map((_, i) => String(i)));
    expect(await movedSoFar(redis as Cluster)).toBe(before);
  });

  it("should route a script (EVALSHA, EVAL) by its first key, not by its sha or its number of keys", async () => {
    const before = await movedSoFar(redis as Cluster);
    const keys = Array.from({ length: 60 }, (_, i) => `${prefix}:{script-${i}}:u:${i}`);
    const lua = "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return redis.call('GET', KEYS[1])";
    (redis as Cluster).defineCommand("routeTwoKeys", { numberOfKeys: 2, lua });
    const two = (k: string, v: string) => (redis as unknown as { routeTwoKeys(a: string, b: string, v: string): Promise<string> }).routeTwoKeys(k, `${k}:second`, v);
    expect(await Promise.all(keys.map((k, i) => two(k, String(i))))).toEqual(keys.map((_, i) => String(i)));
    expect(await Promise.all(keys.map((k) => redis.eval("return redis.call('GET', KEYS[1])", 1, k)))).toEqual(keys.map((_, i) => String(i)));
    expect(await movedSoFar(redis as Cluster)).toBe(before);
  });
});

describe("a command sent straight to its slot's master (BridgeCluster's fast path)", () => {
  /** A connection of its own whose slot table is made wrong for `key`: it names another master. */
  const misrouted = async (key: string) => {
    const c = await ownConnection(`misrouted-${randomBytes(4).toString("hex")}`);
    const slot = slotOf(key);
    const right = c.slots[slot][0];
    const wrong = c.nodes("master").map((n) => `${n.options.host}:${n.options.port}`).find((hp) => hp !== right)!;
    c.slots[slot] = [wrong];
    return { c, slot, right };
  };

  it("should follow a MOVED answer through ioredis's routing, which then corrects the slot table", async () => {
    const key = `${prefix}:{moved}:k`;
    const { c, slot, right } = await misrouted(key);
    try {
      const before = await movedSoFar(c);
      // sent to the wrong master, answered MOVED, sent again: it succeeds instead of failing with MOVED
      expect(await c.set(key, "v")).toBe("OK");
      expect(await movedSoFar(c)).toBeGreaterThan(before);
      expect(await c.get(key)).toBe("v");
      await waitFor(async () => c.slots[slot][0] === right, 5000, "the slot table corrected");
    } finally {
      c.disconnect();
    }
  });

  it("should reject a command Redis refused for any other reason once, without sending it again", async () => {
    const key = `${prefix}:{refused}:list`;
    await redis.rpush(key, "a");
    const c = await ownConnection(`refused-${randomBytes(4).toString("hex")}`);
    try {
      const node = nodeFor(c, key)!;
      const stat = async () => Number(/cmdstat_incr:calls=(\d+)/.exec(await node.info("commandstats"))?.[1] ?? 0);
      const before = await stat();
      await expect(c.incr(key)).rejects.toThrow(/WRONGTYPE/);
      expect(await stat()).toBe(before + 1);
    } finally {
      c.disconnect();
    }
  });
});

describe("a cluster connection and its copies", () => {
  it("should hold connections to masters only when the seed list names replicas too", async () => {
    const name = `copy-test-${randomBytes(4).toString("hex")}`;
    const original = await ownConnection(name);
    const copy = original.duplicate();
    try {
      await waitReady(copy, 10000);
      // a key on every master's slots, through the copy (the commands a Worker's connection sends)
      for (let i = 0; i < 12; i++) await copy.set(`${prefix}:{copy-${i}}:k`, "1");
      await copy.info(); // a command without a key (BullMQ sends INFO) goes to some node of the copy's choice
      // every node asked on a connection of the test's own (a node the clients know nothing of)
      const named = async (role: "master" | "slave") => {
        let n = 0;
        for (const hp of TEST_CLUSTER_NODES) {
          const [host, port] = hp.split(":");
          const node = new Redis(Number(port), host);
          try {
            if ((await node.role())[0] !== role) continue;
            n += ((await node.client("LIST")) as string).split("\n").filter((l) => l.includes(` name=${name} `)).length;
          } finally {
            node.disconnect();
          }
        }
        return n;
      };
      expect(await named("master")).toBeGreaterThanOrEqual(3);
      // a replica connection opened by the first slots refresh is closed right after it: wait for the close
      await waitFor(async () => (await named("slave")) === 0, 5000, "no connection to a replica");
      // and none comes back with a later slots refresh (ioredis refreshes on MOVED and lost connections)
      await new Promise<void>((resolve, reject) => copy.refreshSlotsCache((err) => (err ? reject(err) : resolve())));
      await new Promise<void>((resolve, reject) => original.refreshSlotsCache((err) => (err ? reject(err) : resolve())));
      expect(await named("slave")).toBe(0);
    } finally {
      copy.disconnect();
      original.disconnect();
    }
  });
});
