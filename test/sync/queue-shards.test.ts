/**
 * Issue 12 §2: "A worker process holds a bounded number of Redis connections whatever the number of
 * directories … keep per-directory rate limit, concurrency, 401 pause and failure isolation within a shard
 * (a paused or rate-limited directory's jobs are parked … and never block its shard-mates; fair turns between
 * directories of a shard so one directory's 50,000-user resync cannot starve a 5-user change of another).
 * Adding a directory must not need a new Worker. Migrate jobs waiting in today's per-directory queues."
 * Real Redis, BullMQ and the simulator over HTTP. Shard-mates are made certain with `sync.queueShards: 1`.
 */
import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Cluster } from "ioredis";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";
import { DISPATCH_GROUP } from "../../src/sync/admission/dispatcher";
import { userBody } from "../helpers/expect-scim";
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, reconcileJobs, simUser, waitAllSynced, waitStatus } from "../helpers/sync-wait";

const logger = createLogger("silent");

/** Connections whose CLIENT SETNAME is `name`, or (BullMQ's Workers) names one of this prefix's shards. */
async function connectionsOf(e: SyncEnv, name: string): Promise<string[]> {
  // on a cluster, the connections of every master (CLIENT LIST sent to the cluster goes to one of them)
  const nodes = e.redis instanceof Cluster ? e.redis.nodes("master") : [e.redis];
  const lists = await Promise.all(nodes.map(async (n) => (await n.client("LIST")) as string));
  return lists.join("\n").split("\n").map((l) => /(?:^| )name=(\S*)/.exec(l)?.[1] ?? "").filter((n) => n === name || n.startsWith(`{${e.prefix}:q`));
}

describe("queue shards", () => {
  it("should hold at most 16 Redis connections in a worker of 200 directories, and sync any of them", async () => {
    const ids = Array.from({ length: 200 }, (_, i) => `d${i}`);
    const e = await startSyncEnv({ runtime: false, directories: ids.map((id) => ({ id })) });
    try {
      const name = `qs-test-${e.prefix}`;
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, connectionName: name });
      expect(e.runtime.workers).toHaveLength(e.config.sync.queueShards);
      const uid = await createUser(e, "d157", "far.directory@example.com");
      await waitStatus(e, "d157", "user", uid, "synced");
      const conns = await connectionsOf(e, name);
      expect(conns.length).toBeGreaterThan(0);
      expect(conns.length).toBeLessThanOrEqual(16);
    } finally {
      await e.close();
    }
  });

  it("should let a directory added at run time sync through the existing Workers", async () => {
    const e = await startSyncEnv({ runtime: false, config: { sync: { queueShards: 2 } } });
    try {
      // a name of its own: other suites (and other checkouts' tests) run workers on this Redis meanwhile
      const name = `qs-late-${e.prefix}`;
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, connectionName: name });
      // once a first directory has synced (the dispatcher has waited idle on its own connection) and every
      // shard's blocking connection is up (BullMQ opens them after startSyncRuntime returns)
      const first = await createUser(e, e.config.directories[0].id, "first.one@example.com");
      await waitStatus(e, e.config.directories[0].id, "user", first, "synced");
      const before = await waitFor(async () => {
        const conns = await connectionsOf(e, name);
        return conns.filter((n) => n.startsWith(`{${e.prefix}:q`)).length === e.config.sync.queueShards ? conns : undefined;
      }, 15000, "every shard's blocking connection");
      const workers = e.runtime!.workers.length;
      const late = { ...e.config.directories[0], id: "late", tokenHashes: e.config.directories[0].tokenHashes };
      await e.runtime!.addDirectory(late);
      const uid = randomUUID();
      await e.users.write("late", uid, userBody("late.one@example.com") as never, "create");
      await e.runtime!.queues.enqueue("late", "user", uid);
      await waitStatus(e, "late", "user", uid, "synced");
      expect(e.runtime!.workers).toHaveLength(workers);
      expect(await connectionsOf(e, name)).toHaveLength(before.length);
    } finally {
      await e.close();
    }
  });

  it("should not let a paused directory hold its shard-mate", async () => {
    const e = await startSyncEnv({
      runtime: false,
      config: { sync: { queueShards: 1, shardConcurrency: 2 } },
      directories: [{ id: "bad", concurrency: 4, platform: { apiKeyEnv: "BAD_KEY" } }, { id: "good" }],
      env: { BAD_KEY: "not-a-platform-key-0000" },
    });
    try {
      const bad = [];
      for (let i = 0; i < 30; i++) bad.push(await createUser(e, "bad", `bad${i}@example.com`));
      const good = [await createUser(e, "good", "good.one@example.com"), await createUser(e, "good", "good.two@example.com")];
      await e.startRuntime({ TEST_PLATFORM_KEY: PLATFORM_KEY, BAD_KEY: "not-a-platform-key-0000" });
      await waitAllSynced(e, "good", "user", good);
      await waitFor(async () => (await e.state.meta("bad")).paused, 5000, "bad paused");
      // every one of bad's resources waits in its own backlog, none holds a place in the shard
      await waitFor(async () => {
        const d = await e.queues.depth("bad");
        return d.backlog === bad.length && d.admitted === 0;
      }, 10000, "bad's work parked in its backlog");
      for (const id of bad) expect((await e.state.get("bad", "user", id)).status).toBe("pending");
      expect(await simUser(e, "bad0@example.com")).toBeUndefined();
    } finally {
      await e.close();
    }
  });

  it("should run every directory's first job in flight before any directory's second (fair turns)", async () => {
    // one shard, one job at a time: the order jobs finish in is the order the shard hands them out
    const e = await startSyncEnv({
      runtime: false,
      config: { sync: { queueShards: 1, shardConcurrency: 1 } },
      directories: [{ id: "a", concurrency: 4 }, { id: "b", concurrency: 4 }, { id: "late", concurrency: 4 }],
    });
    try {
      const ids: Record<string, string[]> = { a: [], b: [], late: [] };
      for (const [dir, n] of [["a", 4], ["b", 4], ["late", 1]] as const) {
        for (let i = 0; i < n; i++) ids[dir].push(await createUser(e, dir, `${dir}${i}@example.com`));
        // admitted now, in this order: a's four, b's four, then late's one
        await e.queues.enqueueMany(dir, ids[dir].map((id) => ({ kind: "user" as const, id })));
      }
      await e.startRuntime();
      for (const dir of ["a", "b", "late"]) await waitAllSynced(e, dir, "user", ids[dir]);
      const finished = async (dir: string, id: string) => Math.min(...(await reconcileJobs(e, dir, "user", id)).map((j) => j.finishedOn!));
      const lateFirst = await finished("late", ids.late[0]);
      // late's only job went right after the first jobs of a and b, ahead of their 2nd–4th (admitted
      // before it: FIFO ran it last, after all eight)
      for (const dir of ["a", "b"]) {
        const before = (await Promise.all(ids[dir].map((id) => finished(dir, id)))).filter((t) => t < lateFirst);
        expect(before).toHaveLength(1);
      }
    } finally {
      await e.close();
    }
  });

  it("should let a directory that was idle go before the next jobs of busy ones (fair share), not behind a turn-1 job of each", async () => {
    // one shard, one job at a time; ten busy directories, one job in flight each, so every one of them has
    // a turn-1 job queued at all times: by turns alone, late's first job waited behind all ten
    const busy = Array.from({ length: 10 }, (_, i) => `busy${i}`);
    const e = await startSyncEnv({
      runtime: false,
      config: { sync: { queueShards: 1, shardConcurrency: 1 } },
      directories: [...busy.map((id) => ({ id, concurrency: 1 })), { id: "late", concurrency: 1 }],
    });
    try {
      const ids: Record<string, string[]> = {};
      for (const dir of busy) {
        ids[dir] = [];
        for (let i = 0; i < 8; i++) ids[dir].push(await createUser(e, dir, `${dir}.${i}@example.com`));
      }
      await e.startRuntime();
      // every busy directory has had a job run, so its next ones are queued with a share
      await waitFor(async () => (await Promise.all(busy.map((d) => e.state.counts(d)))).every((c) => c.synced >= 1), 20000, "a job of each busy directory");
      const asked = Date.now();
      const late = await createUser(e, "late", "late@example.com");
      await waitStatus(e, "late", "user", late, "synced", 20000);
      const [lateJob] = await waitFor(async () => { const j = await reconcileJobs(e, "late", "user", late); return j.length ? j : undefined; }, 5000, "late's job completed");
      // the busy directories' jobs that finished between the request and late's job: the one running then,
      // and those the dispatcher's own delay let through; by turns alone, one of every busy directory more
      const between = (await Promise.all(busy.flatMap((d) => ids[d].map((id) => reconcileJobs(e, d, "user", id)))))
        .flat().filter((j) => j.finishedOn! > asked && j.finishedOn! < lateJob.finishedOn!);
      expect(between.length).toBeLessThan(busy.length / 2);
      for (const dir of busy) await waitAllSynced(e, dir, "user", ids[dir], 60000);
    } finally {
      await e.close();
    }
  });

  it("should give a shard-mate's small change its turn ahead of another directory's big backlog", async () => {
    const e = await startSyncEnv({
      runtime: false,
      config: { sync: { queueShards: 1, shardConcurrency: 2 } },
      directories: [{ id: "big", concurrency: 2 }, { id: "small", concurrency: 2 }],
      sim: { faults: { rateLimit: null, latency: { fixedMs: 10 } } },
    });
    try {
      const big = [];
      for (let i = 0; i < 150; i++) big.push(await createUser(e, "big", `big${i}@example.com`));
      await e.startRuntime();
      // the big backlog is queued first and is being worked on …
      await waitFor(async () => (await e.state.counts("big")).synced >= 2, 10000, "big under way");
      const small = [];
      for (let i = 0; i < 5; i++) small.push(await createUser(e, "small", `small${i}@example.com`));
      await waitAllSynced(e, "small", "user", small);
      // … and the small change did not wait for it: most of big's backlog is still to do
      const doneBig = (await e.state.counts("big")).synced;
      expect(doneBig).toBeLessThan(big.length / 2);
      await waitAllSynced(e, "big", "user", big, 60000);
    } finally {
      await e.close();
    }
  });

  it("should give back a slot whose job is gone (a worker died between admission and enqueue) and sync the resource", async () => {
    const e = await startSyncEnv({ runtime: false, wf: { concurrency: 1 } });
    try {
      const uid = await createUser(e, "wf", "orphaned@example.com");
      await e.redis.del(e.users.keys("wf").outbox);
      // admitted long ago, no job in the shard: wf's one slot is taken by nothing
      await e.redis.zadd(e.queues.admission.keys("wf").inflight, Date.now() - 120000, `user:${uid}`);
      expect(await e.queues.admit("wf")).toBe(0);
      expect(await e.queues.recover(60000)).toEqual({ requeued: 1, admitted: 1 });
      await e.startRuntime();
      await waitStatus(e, "wf", "user", uid, "synced");
      await waitFor(async () => (await e.queues.depth("wf")).admitted === 0, 5000, "the slot freed");
    } finally {
      await e.close();
    }
  });

  it("should lose nothing when the shard refuses the jobs of a dispatched batch: its entries are acked, its resources wait in the backlog and sync", async () => {
    const e = await startSyncEnv({ runtime: false });
    try {
      const uid = await createUser(e, "wf", "refused@example.com");
      const stream = e.users.keys("wf").outbox;
      await e.redis.xgroup("CREATE", stream, DISPATCH_GROUP, "0", "MKSTREAM");
      const read = (await e.redis.xreadgroup("GROUP", DISPATCH_GROUP, "test", "COUNT", 10, "STREAMS", stream, ">")) as unknown as Array<[string, Array<[string]>]>;
      const ids = read[0][1].map(([id]) => id);
      const add = jest.spyOn(e.queues.queueOf("wf"), "add").mockRejectedValueOnce(new Error("shard unreachable"));
      await expect(e.queues.dispatch("wf", [{ kind: "user", id: uid }], { stream, group: DISPATCH_GROUP, ids })).rejects.toThrow("shard unreachable");
      add.mockRestore();
      expect(await e.redis.xlen(stream)).toBe(0); // acked and deleted in the dispatch command
      expect(await e.queues.depth("wf")).toEqual({ backlog: 1, admitted: 0 }); // given back, not lost
      await e.startRuntime();
      await waitStatus(e, "wf", "user", uid, "synced");
    } finally {
      await e.close();
    }
  });

  it("should give back the lost slots of every directory, however many (checked a few directories at a time)", async () => {
    const e = await startSyncEnv({ runtime: false });
    const dirs = Array.from({ length: 30 }, (_, i) => `lost${i}`);
    try {
      for (const d of dirs) {
        e.queues.register(d, 1);
        // admitted long ago, no job in the shard: the directory's one slot is taken by nothing
        await e.redis.zadd(e.queues.admission.keys(d).inflight, Date.now() - 120000, `user:${randomUUID()}`);
      }
      expect(await e.queues.recover(60000)).toEqual({ requeued: dirs.length, admitted: dirs.length });
      for (const d of dirs) expect(await e.queues.depth(d)).toEqual({ backlog: 0, admitted: 1 });
    } finally {
      for (const d of dirs) e.queues.unregister(d);
      await e.close();
    }
  });

  it("should not give back a slot whose job finished while the recovery was looking (no second run)", async () => {
    const e = await startSyncEnv({ runtime: false, wf: { concurrency: 1 } });
    const member = `user:${randomUUID()}`;
    // the recovery reads the old admissions, then asks BullMQ about each job: here the job finishes in
    // between (its slot released, as a finished reconcile's is) and BullMQ no longer knows it
    const spy = jest.spyOn(Queue.prototype, "getDeduplicationJobId").mockImplementation(async () => {
      await e.queues.admission.release("wf", member);
      return null;
    });
    try {
      await e.redis.zadd(e.queues.admission.keys("wf").inflight, Date.now() - 120000, member);
      expect(await e.queues.recover(60000)).toEqual({ requeued: 0, admitted: 0 });
      expect(await e.queues.depth("wf")).toEqual({ backlog: 0, admitted: 0 });
    } finally {
      spy.mockRestore();
      await e.close();
    }
  });
});
