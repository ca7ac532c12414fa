/**
 * Issue 4 §1: "Jobs carry keys, workers read the latest desired state. A reconcile job names (directory,
 * kind, id); duplicates collapse; a change that lands while a reconcile of the same resource is running
 * triggers exactly one more; no two reconciles of one resource run at once." Simulator latency keeps
 * reconciles active long enough for changes to land during them.
 *
 * Whether two reconciles of one resource overlapped is read from the reconciles themselves (wrapped below,
 * one clock), not from their jobs' processedOn / finishedOn: those are each worker's Date.now() when it sent
 * its command, and with two runtimes on two connections the command sent a millisecond later can reach Redis
 * first. CI saw a next job "start" 1 ms before its predecessor finished; the wrapped reconciles showed none.
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, reconcileJobs, simUser, waitAllSynced, waitIdle, waitStatus } from "../helpers/sync-wait";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";
import * as reconcileModule from "../../src/sync/reconcile";

/** A reconcile this process ran: its resource, and when it started and ended (performance.now). */
interface ReconcileRun { key: string; start: number; end: number }
jest.mock("../../src/sync/reconcile", () => {
  const actual = jest.requireActual("../../src/sync/reconcile");
  const runs: ReconcileRun[] = [];
  return {
    ...actual,
    reconcileRuns: runs,
    reconcile: async (c: { dir: { id: string } }, kind: string, id: string) => {
      const start = performance.now();
      try { return await actual.reconcile(c, kind, id); } finally { runs.push({ key: `${c.dir.id}:${kind}:${id}`, start, end: performance.now() }); }
    },
  };
});
const reconcileRuns = (reconcileModule as unknown as { reconcileRuns: ReconcileRun[] }).reconcileRuns;

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv(); });
afterAll(async () => e.close());
afterEach(() => { e.sim.setFaults({}); });

const posts = async () => (await e.simState()).counters.endpoints["POST /scim/v2/Users"]?.writes ?? 0;

describe("reconcile jobs of one resource", () => {
  it("should carry only the key and collapse 50 quick enqueues of one resource into at most two reconciles", async () => {
    e.sim.setFaults({ latency: { fixedMs: 150 } });
    const postsBefore = await posts();
    const id = await createUser(e, "wf", "dup@example.com");
    await Promise.all(Array.from({ length: 50 }, () => e.queues.enqueue("wf", "user", id)));
    await waitStatus(e, "wf", "user", id, "synced");
    await waitIdle(e, "wf");

    const jobs = await reconcileJobs(e, "wf", "user", id);
    expect(jobs.length).toBeGreaterThanOrEqual(1);
    expect(jobs.length).toBeLessThanOrEqual(2);
    for (const j of jobs) expect(j.data).toEqual({ dir: "wf", kind: "user", id });
    expect(await posts()).toBe(postsBefore + 1);
  });

  it("should run exactly one more reconcile for changes that land while one is active, ending with the latest state", async () => {
    e.sim.setFaults({ latency: { fixedMs: 400 } });
    const id = await createUser(e, "wf", "during@example.com", { displayName: "v1" });
    await waitFor(async () => (await reconcileJobs(e, "wf", "user", id, ["active"])).length === 1, 5000, "the first reconcile to be active");
    for (const v of ["v2", "v3", "v4"]) {
      const res = await e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "replace", path: "displayName", value: v }] });
      expect(res.status).toBe(200);
    }
    expect(await reconcileJobs(e, "wf", "user", id, ["active"])).toHaveLength(1); // the changes landed during it

    await waitFor(async () => (await simUser(e, "during@example.com"))?.displayName === "v4", 10000, "the latest state on the platform");
    await waitIdle(e, "wf");
    expect(await reconcileJobs(e, "wf", "user", id)).toHaveLength(2);
    expect((await e.state.get("wf", "user", id)).status).toBe("synced");
  });

  it("should never run two reconciles of one resource at once, even with two runtimes competing", async () => {
    e.sim.setFaults({ latency: { fixedMs: 40, jitterMs: 40 } });
    const second = await startSyncRuntime(e.config, createLogger("silent"), { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, consumer: "second-runtime" });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await createUser(e, "wf", `overlap${i}@example.com`, { title: "t0" }));
      for (let round = 1; round <= 8; round++) {
        await Promise.all(ids.map((id) => e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "replace", path: "title", value: `t${round}` }] })));
        // the next round once this one is dispatched to the queue, where the two runtimes compete for it
        await waitFor(async () => (await e.redis.xlen(e.users.keys("wf").outbox)) === 0, 5000, `round ${round} dispatched`);
      }
      await waitAllSynced(e, "wf", "user", ids);
      await waitIdle(e, "wf", 15000);

      const overlaps: string[] = [];
      let reconciles = 0;
      for (const id of ids) {
        expect((await reconcileJobs(e, "wf", "user", id)).length).toBeLessThanOrEqual(9); // never more than one per change
        const runs = reconcileRuns.filter((r) => r.key === `wf:user:${id}`).sort((a, b) => a.start - b.start);
        reconciles += runs.length;
        for (let i = 1; i < runs.length; i++) {
          if (runs[i].start < runs[i - 1].end) overlaps.push(`${id}: run ${i + 1} started ${(runs[i - 1].end - runs[i].start).toFixed(1)} ms before run ${i} ended`);
        }
      }
      expect(overlaps).toEqual([]);
      expect(reconciles).toBeGreaterThan(ids.length); // changes did land during reconciles
      const s = await e.simState();
      for (let i = 0; i < ids.length; i++) {
        expect(s.scim.users.find((u) => u.userName === `overlap${i}@example.com`)).toMatchObject({ title: "t8" });
      }
    } finally {
      await second.close();
    }
  });
});
