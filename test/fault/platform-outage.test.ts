/**
 * A 60 s platform outage in the middle of a 1,000-user push, with real processes: the simulator, a bridge
 * server and a worker. Every request of the outage answers 503; the worker retries with the bridge
 * backoff (200 ms base, capped at 5 s by `sync.maxBackoffMs`, 50 attempts: more than the outage needs), so
 * once the platform is back every user syncs, none is failed and none is created twice. The outage lasts
 * until the test ends it (after 60 s, and never before the push is done), so "during the outage" holds
 * however slow this machine is; how fast the bridge recovers is a figure of bench/timing.
 */
import { inPool } from "../helpers/idp-client";
import { startFaultEnv, until, userBody, type FaultEnv } from "../helpers/fault-env";

const USERS = 1000;
const OUTAGE_AFTER = 300;
const OUTAGE_SECONDS = 60;

let e: FaultEnv;
beforeAll(async () => {
  e = await startFaultEnv({ faults: { latency: { fixedMs: 5, jitterMs: 5 } } });
  await e.startServer();
  await e.startWorker();
}, 60000);
afterAll(async () => e?.close(), 30000);

describe("platform outage during a push (server, worker and simulator processes)", () => {
  it("should sync every one of 1,000 users after a 60 s outage, with none failed and none duplicated", async () => {
    const idp = e.idp();
    const names = Array.from({ length: USERS }, (_, i) => `outage.user.${String(i).padStart(4, "0")}@example.com`);
    let outageStarted = 0;
    await inPool(names, 10, async (name, i) => {
      if (i === OUTAGE_AFTER) {
        await e.sim.setFaults({ outage: { forSeconds: 24 * 3600, mode: "503" } }); // ended below
        outageStarted = Date.now();
      }
      const r = await idp.send("POST", "/Users", userBody(name));
      if (r.status !== 201) throw new Error(`POST ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    });
    // the SCIM side never waits on the platform: the whole push was accepted during the outage (which is still on)

    // the scenario's 60 s of outage; then, still in it: the worker kept trying, items stay pending, nothing is given up
    await until("60 s of outage", OUTAGE_SECONDS * 1000 + 5000, () => Date.now() >= outageStarted + OUTAGE_SECONDS * 1000, 250);
    const during = await e.counts();
    const simDuring = await e.sim.state();
    expect(simDuring.counters.faults.outage).toBeGreaterThan(0);
    expect(during.failed).toBe(0);
    expect(during.pending).toBeGreaterThan(0);

    await e.sim.setFaults({ latency: { fixedMs: 5, jitterMs: 5 } }); // the platform is back
    const synced = await until("every user synced after the outage", 60000, async () => {
      const c = await e.counts();
      return c.synced === USERS && c;
    }, 500);

    expect(synced).toEqual({ pending: 0, synced: USERS, failed: 0, deprovisioned: 0 });
    expect(await e.queue().getJobCounts("failed")).toEqual({ failed: 0 });
    const sim = await e.sim.state();
    const userNames = sim.scim.users.map((u) => u.userName);
    expect(userNames).toHaveLength(USERS);
    expect(new Set(userNames)).toEqual(new Set(names));
    expect(await e.diff()).toEqual([]);
  }, 180000);
});
