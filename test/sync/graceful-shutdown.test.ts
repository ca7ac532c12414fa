/**
 * Issue 4 §7: "Graceful shutdown finishes or hands back active jobs." `runtime.close()` while a reconcile
 * waits on the (slow) platform resolves only after that reconcile completed; work not started yet stays
 * queued for the next runtime. The directory runs one reconcile at a time, so the second user waits in its
 * backlog.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, reconcileJobs, simUser, waitStatus } from "../helpers/sync-wait";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv({ wf: { concurrency: 1 } }); });
afterAll(async () => e.close());

describe("SyncRuntime.close", () => {
  it("should finish the active reconcile before resolving and leave queued ones for the next runtime", async () => {
    // one call (create-first) that lasts long enough for the second user to be queued behind it
    e.sim.setFaults({ latency: { fixedMs: 1500 } });
    const active = await createUser(e, "wf", "finishing@example.com");
    await waitFor(async () => (await reconcileJobs(e, "wf", "user", active, ["active"])).length === 1, 5000, "an active reconcile");
    const queued = await createUser(e, "wf", "queued@example.com");
    // concurrency 1: the second resource waits in the directory's backlog, not admitted into the shard yet
    await waitFor(async () => (await e.queues.depth("wf")).backlog === 1, 5000, "a reconcile waiting in the backlog");

    const runtime = e.runtime!;
    e.runtime = undefined;
    await runtime.close();

    // resolved only once the active job was done: synced on both sides and completed in BullMQ
    expect((await e.state.get("wf", "user", active)).status).toBe("synced");
    expect(await simUser(e, "finishing@example.com")).toBeDefined();
    expect(await reconcileJobs(e, "wf", "user", active)).toHaveLength(1);
    expect(await reconcileJobs(e, "wf", "user", active, ["active", "failed"])).toHaveLength(0);

    // the queued one was not started and is still there (no runtime is left to start it)
    expect((await e.state.get("wf", "user", queued)).status).toBe("pending");
    expect(await e.queues.admission.backlogged(["wf"])).toEqual(["wf"]);
    expect(await reconcileJobs(e, "wf", "user", queued, ["wait", "active", "completed"])).toHaveLength(0);

    e.sim.setFaults({});
    await e.startRuntime();
    await waitStatus(e, "wf", "user", queued, "synced", 5000);
  });

  it("should not wait out the sweeper's interval: an idle runtime closes although its next sweep is 10 minutes away", async () => {
    // waiting out the interval would outlast the test's timeout; how fast it closes is a figure of bench/timing
    const slowSweep = await startSyncEnv({ config: { sync: { sweepIntervalMs: 600_000 } } });
    try {
      await expect(slowSweep.runtime!.close()).resolves.toBeUndefined();
      slowSweep.runtime = undefined;
    } finally {
      await slowSweep.close();
    }
  });
});
