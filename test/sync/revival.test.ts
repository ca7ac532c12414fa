/**
 * Outage casualties recover by themselves (issue 9 item 6), with the simulator's fault injection: an item
 * whose retries ran out during an outage is queued again as soon as the directory's platform calls
 * succeed again, and on its own slow schedule while nothing else calls; a validation failure (here: the
 * directory reads the platform's 503 as a message-bearing refusal, `platform.messageFailureStatus`)
 * waits for a change or an operator.
 */
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";

const FAST = { attempts: 2, backoffMs: 20, maxBackoffMs: 40, outageGapMs: 200, reviveTickMs: 100, keyCheckIntervalMs: 3600000 };

async function user(e: SyncEnv, dir: string, userName: string): Promise<string> {
  const res = await e.scim(dir).post("/Users", userBody(userName));
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const failed = (e: SyncEnv, dir: string, id: string) =>
  waitFor(async () => { const st = await e.state.get(dir, "user", id); return st.status === "failed" ? st : undefined; }, 15000, `${id} failed`);
const synced = (e: SyncEnv, dir: string, id: string) =>
  waitFor(async () => (await e.state.get(dir, "user", id)).status === "synced", 20000, `${id} synced`);

describe("when the platform answers again", () => {
  let e: SyncEnv;
  beforeAll(async () => {
    e = await startSyncEnv({
      // no scheduled revival within the test: only the platform's recovery may bring the item back. An
      // outage is at least `outageGapMs` of failing calls with no success between (since the key check at
      // start): 1 ms here, so the failures above are one however quickly a machine runs them
      config: { sync: { ...FAST, reviveBaseMs: 3600000, outageGapMs: 1 } },
      directories: [{ id: "wfv", platform: { messageFailureStatus: 503 } }],
    });
  });
  afterAll(async () => e.close());

  it("should queue the outage's transient failures again by themselves, and leave validation failures alone", async () => {
    e.sim.setFaults({ outage: { forSeconds: 3600 } });
    const casualty = await user(e, "wf", "rv.casualty@example.com");
    const refused = await user(e, "wfv", "rv.refused@example.com");
    const lost = await failed(e, "wf", casualty);
    expect(lost.lastError).toMatch(/simulated outage/);
    await failed(e, "wfv", refused);
    await waitIdle(e, "wf");
    e.sim.setFaults({});
    // any successful call of the directory ends its outage: here another user's create
    const next = await user(e, "wf", "rv.next@example.com");
    await synced(e, "wf", next);
    await synced(e, "wf", casualty);
    expect((await e.simState()).scim.users.find((u) => u.userName === "rv.casualty@example.com")).toMatchObject({ externalId: `wf:${casualty}` });
    // the validation failure of wfv stays failed after wfv's own calls succeed again
    const ok = await user(e, "wfv", "rv.ok@example.com");
    await synced(e, "wfv", ok);
    await waitIdle(e, "wf");
    expect(await e.state.get("wfv", "user", refused)).toMatchObject({ status: "failed" });
  });
});

describe("on the slow schedule", () => {
  let e: SyncEnv;
  beforeAll(async () => { e = await startSyncEnv({ config: { sync: { ...FAST, reviveBaseMs: 300, reviveMaxMs: 1200 } } }); });
  afterAll(async () => e.close());

  it("should try a transient failure again, later each time, until the platform takes it, with no other call", async () => {
    e.sim.setFaults({ outage: { forSeconds: 3600 } });
    const id = await user(e, "wf", "rv.slow@example.com");
    await failed(e, "wf", id);
    // it is tried again (and fails again) while the outage lasts: the schedule backs off
    const revived = (await e.simState()).counters.faults.outage;
    await waitFor(async () => (await e.simState()).counters.faults.outage > revived, 10000, "a scheduled try during the outage");
    await failed(e, "wf", id);
    const count = Number(await e.redis.hget(`${e.prefix}:{wf}:s:revive:n`, `user:${id}`));
    expect(count).toBeGreaterThanOrEqual(1);
    e.sim.setFaults({});
    await synced(e, "wf", id);
  });
});
