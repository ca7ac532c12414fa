/**
 * Issue 4, tests: "a worker killed mid-job (SIGKILL of a child process) → the job completes after
 * restart". The worker runs in a child process (test/helpers/sync-worker-process.ts) with this suite's
 * config; the simulator's latency keeps its reconciles active when it is killed. With
 * `sync.lockDurationMs` 2000, the next worker must take the stalled jobs over within seconds.
 * The child is `node --import tsx`, not the `.bin/tsx` wrapper: SIGKILL of the wrapper would leave the
 * worker running as an orphan. Each child leads its own process group, which cleanup kills whole.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { DirectoryKeys } from "../../src/store";
import { DISPATCH_GROUP } from "../../src/sync/admission/dispatcher";
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, reconcileJobs, waitAllSynced, waitIdle } from "../helpers/sync-wait";
import { directoryQueue } from "../helpers/directory-queue";

const ROOT = path.resolve(__dirname, "../..");
let e: SyncEnv;
const children: ChildProcess[] = [];
beforeAll(async () => { e = await startSyncEnv({ runtime: false, config: { sync: { lockDurationMs: 2000 } } }); });
afterAll(async () => {
  for (const c of children) {
    try { process.kill(-c.pid!, "SIGKILL"); } catch { /* the group is gone already */ }
  }
  await e.close();
});

/** Starts a worker process and resolves once it prints "ready". */
function startWorker(name: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "test/helpers/sync-worker-process.ts")], {
    cwd: ROOT, detached: true,
    env: { ...process.env, SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(e.config), TEST_PLATFORM_KEY: PLATFORM_KEY, SYNC_WORKER_CONSUMER: name },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`worker ${name} not ready after 20 s: ${err}`)), 20000);
    child.stderr!.on("data", (d: Buffer) => { err += d.toString(); });
    child.stdout!.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) { clearTimeout(timer); resolve(child); }
    });
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`worker ${name} exited with ${code}: ${err}`)); });
  });
}

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once("exit", () => r())));

describe("a worker killed mid-job", () => {
  it("should have every job it held completed by the next worker after SIGKILL", async () => {
    const queue = directoryQueue(e.queues, "wf");
    e.sim.setFaults({ latency: { fixedMs: 1500 } });
    const first = await startWorker("worker-a");

    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createUser(e, "wf", `crash${i}@example.com`));
    const outbox = new DirectoryKeys(e.prefix, "wf").outbox;
    await waitFor(async () => (await queue.getActiveCount()) === 6, 10000, "six active reconciles");
    await waitFor(async () => ((await e.redis.xpending(outbox, DISPATCH_GROUP)) as [number])[0] === 0, 5000, "the outbox acked");
    const held = (await queue.getActive()).map((j) => j.id);

    process.kill(first.pid!, "SIGKILL");
    await exited(first);
    e.sim.setFaults({ latency: { fixedMs: 100 } });
    const second = await startWorker("worker-b");

    await waitAllSynced(e, "wf", "user", ids, 20000);
    await waitIdle(e, "wf", 5000);
    const jobs = (await Promise.all(ids.map((id) => reconcileJobs(e, "wf", "user", id)))).flat();
    expect(jobs.map((j) => j.id).sort()).toEqual([...held].sort()); // the very jobs the dead worker held
    expect(jobs.every((j) => j.stalledCounter === 1)).toBe(true);
    expect(await queue.getFailedCount()).toBe(0);
    const names = (await e.simState()).scim.users.map((u) => u.userName).filter((n) => n.startsWith("crash"));
    expect(names.sort()).toEqual(ids.map((_, i) => `crash${i}@example.com`).sort());

    second.kill("SIGTERM");
    await exited(second);
    expect(second.exitCode).toBe(0);
  }, 40000);
});

describe("a job whose workers keep dying", () => {
  let f: SyncEnv;
  beforeAll(async () => {
    f = await startSyncEnv({ runtime: false, config: { sync: { lockDurationMs: 2000, maxStalledCount: 0, reviveBaseMs: 1000, reviveTickMs: 250 } } });
  });
  afterAll(async () => f.close());

  // BullMQ owns it (issue 11 item 3): its stalled check hands the job on up to maxStalledCount times, then
  // fails it unrun; the bridge records that as a transient failure whose attempts are spent and the revival
  // schedule queues the resource again — no re-queue of its own on the error's text
  it("should be failed by BullMQ, recorded failed with BullMQ's reason, and synced again by the revival", async () => {
    const saved = e;
    e = f; // startWorker reads the suite's environment
    try {
      f.sim.setFaults({ latency: { fixedMs: 1500 } });
      const first = await startWorker("worker-c");
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await createUser(f, "wf", `stall${i}@example.com`));
      await waitFor(async () => (await directoryQueue(f.queues, "wf").getActiveCount()) === 3, 10000, "three active reconciles");
      process.kill(first.pid!, "SIGKILL");
      await exited(first);
      f.sim.setFaults({ latency: { fixedMs: 0 } });
      const second = await startWorker("worker-d");
      // …BullMQ gives up on the stalled jobs and the items are failed with its reason…
      await waitFor(async () => (await directoryQueue(f.queues, "wf").getFailedCount()) === 3, 15000, "BullMQ failing the three stalled jobs");
      const failed = await directoryQueue(f.queues, "wf").getJobs("failed");
      expect(failed.map((j) => j.failedReason)).toEqual(["job stalled more than allowable limit", "job stalled more than allowable limit", "job stalled more than allowable limit"]);
      // …and the revival queues them again: they sync (their state passed through failed, or they are synced already)
      await waitAllSynced(f, "wf", "user", ids, 25000);
      const trails = await Promise.all(ids.map((id) => f.redis.xrange(`${new DirectoryKeys(f.prefix, "wf").prefix}a:u:${id}`, "-", "+")));
      expect(trails.map((t) => t.some(([, fields]) => /"type":"failed".*stalled more than allowable limit/.test(fields[1])))).toEqual([true, true, true]);
      second.kill("SIGTERM");
      await exited(second);
    } finally {
      e = saved;
    }
  }, 45000);
});
