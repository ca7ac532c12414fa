/**
 * A 60 s platform outage in the middle of a 1,000-user push, with real processes: the simulator, a bridge
 * server and a worker. Every request of the outage answers 503; the worker retries with the bridge
 * backoff (200 ms base, capped at 5 s by `sync.maxBackoffMs`, 50 attempts: more than the outage needs), so
 * once the platform is back every user syncs within seconds, none is failed and none is created twice.
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
    let outageEnds = 0;
    await inPool(names, 10, async (name, i) => {
      if (i === OUTAGE_AFTER) {
        await e.sim.setFaults({ outage: { forSeconds: OUTAGE_SECONDS, mode: "503" } });
        outageEnds = Date.now() + OUTAGE_SECONDS * 1000;
      }
      const r = await idp.send("POST", "/Users", userBody(name));
      if (r.status !== 201) throw new Error(`POST ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    });
    // the SCIM side never waits on the platform: the whole push was accepted during the outage
    expect(Date.now()).toBeLessThan(outageEnds);

    // mid-outage: the worker keeps trying, items stay pending, nothing is given up
    await new Promise((r) => setTimeout(r, Math.max(0, outageEnds - Date.now() - 20000)));
    const during = await e.counts();
    const simDuring = await e.sim.state();
    expect(simDuring.counters.faults.outage).toBeGreaterThan(0);
    expect(during.failed).toBe(0);
    expect(during.pending).toBeGreaterThan(0);

    await until("the outage to end", OUTAGE_SECONDS * 1000, () => Date.now() >= outageEnds, 250);
    const synced = await until("every user synced after the outage", 40000, async () => {
      const c = await e.counts();
      return c.synced === USERS && c;
    }, 500);
    const recoveryMs = Date.now() - outageEnds;

    expect(synced).toEqual({ pending: 0, synced: USERS, failed: 0, deprovisioned: 0 });
    expect(await e.queue().getJobCounts("failed")).toEqual({ failed: 0 });
    const sim = await e.sim.state();
    const userNames = sim.scim.users.map((u) => u.userName);
    expect(userNames).toHaveLength(USERS);
    expect(new Set(userNames)).toEqual(new Set(names));
    expect(await e.diff()).toEqual([]);
    // the backoff cap (5 s) bounds the wait after the platform is back
    expect(recoveryMs).toBeLessThan(30000);
  }, 180000);
});
