/**
 * A held resync is confirmed against the present. 120 users synced, then the directory's store lost; a
 * scheduled resync (a cancel answers 409 while it still lists) holds their 120 deprovisions ("store holds no
 * user"), audited and shown in /metrics like a manual one; the IdP pushes 100 of them again (the documented
 * recovery) and they are adopted onto the same platform ids; the confirmation re-checks what is held,
 * drops those 100, says so, refreshes the hold's reason, and deactivates only the 20 the IdP did not push.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig, getResync } from "../helpers/resync";
import { SIM_TOKEN, startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { scanKeys, unlinkKeys } from "../helpers/redis";
import { createOpsContext } from "../../src/admin/ops-context";
import { refreshGauges } from "../../src/roles/metrics-handler";
import { createMetrics } from "../../src/observability/metrics";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const N = 120;
const PUSHED_AGAIN = 100;
const name = (i: number) => `rc.${i}@example.com`;

async function platformUsers(e: SyncEnv): Promise<Array<{ id: string; userName: string; active?: boolean; externalId?: string }>> {
  return (await e.simState()).scim.users.filter((u) => u.externalId?.startsWith("wf:")) as Array<{ id: string; userName: string; active?: boolean; externalId?: string }>;
}

async function simFaults(e: SyncEnv, faults: object): Promise<void> {
  const res = await fetch(`${e.sim.url}/_sim/faults`, { method: "PUT", headers: { "x-sim-token": SIM_TOKEN, "Content-Type": "application/json" }, body: JSON.stringify(faults) });
  expect(res.status).toBe(200);
}

async function heldGauge(e: SyncEnv): Promise<number> {
  const m = createMetrics();
  await refreshGauges(createOpsContext(e.config, e.redis), m);
  return (await m.deprovisionsHeld.get()).values.find((v) => v.labels.directory === "wf" && v.labels.source === "resync")?.value ?? -1;
}

describe("a held resync confirmed against the present", () => {
  let e: SyncEnv;
  const platformIdOf = new Map<string, string>();
  beforeAll(async () => {
    e = await startSyncEnv({ config: adminConfig });
    for (let i = 0; i < N; i++) expect((await e.scim("wf").post("/Users", userBody(name(i)))).status).toBe(201);
    await waitFor(async () => (await platformUsers(e)).filter((u) => u.active !== false).length === N, 60000, `${N} users on the platform`);
    await waitIdle(e, "wf");
    for (const u of await platformUsers(e)) platformIdOf.set(u.userName.toLowerCase(), u.id);
    // the directory's store is lost (an empty, restored or re-prefixed Redis)
    await unlinkKeys(e.redis, await scanKeys(e.redis, `${e.prefix}:{wf}:*`));
  }, 90000);
  afterAll(async () => e.close());

  it("should refuse a cancel while the scheduled resync runs, then hold every deprovision, audited and in /metrics", async () => {
    // the platform answers slowly, so the resync is still listing when the cancel arrives
    await simFaults(e, { latency: { fixedMs: 400 } });
    await e.queues.enqueueResync("wf", "schedule");
    await waitFor(async () => (await getResync(e, "wf")).status === "running", 20000, "the resync running");
    const cancel = await request(adminApp(e)).post("/admin/directories/wf/resync/cancel").set(auth);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error).toMatch(/running, not awaiting confirmation/);
    await simFaults(e, {});
    const p = await waitFor(async () => {
      const x = await getResync(e, "wf");
      return x.phase === "awaiting-confirmation" ? x : undefined;
    }, 20000, "awaiting confirmation");
    expect(p).toMatchObject({ held: N, requestedBy: "schedule", holdReason: expect.stringMatching(/store holds no user/) });
    const audit = await request(adminApp(e)).get("/admin/directories/wf/resync/audit").set(auth);
    expect(audit.body[0]).toMatchObject({ action: "hold", resync: p.id, by: "schedule", count: N, reason: expect.stringMatching(/no user/) });
    expect(await heldGauge(e)).toBe(N);
  });

  it("should drop what the IdP pushed again, report it, refresh the reason, and deactivate only the rest", async () => {
    const held = await getResync(e, "wf");
    for (let i = 0; i < PUSHED_AGAIN; i++) expect((await e.scim("wf").post("/Users", userBody(name(i)))).status).toBe(201);
    await waitIdle(e, "wf", 60000);
    // adopted onto the same platform users, none duplicated
    const ids = await e.users.ids("wf");
    expect(ids).toHaveLength(PUSHED_AGAIN);
    const states = await e.state.getMany("wf", "user", ids);
    const users = await e.users.find("wf", "id", ids);
    for (const u of users) expect(states[ids.indexOf(u.id)].platformId).toBe(platformIdOf.get(String(u.body.userName).toLowerCase()));
    expect((await platformUsers(e)).length).toBe(N);
    expect((await getResync(e, "wf")).status).toBe("awaiting-confirmation");

    const res = await request(adminApp(e)).post("/admin/directories/wf/resync/confirm").set(auth).send({ by: "alice" });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ confirmed: N - PUSHED_AGAIN, dropped: PUSHED_AGAIN, resync: held.id });
    const p = await waitFor(async () => {
      const x = await getResync(e, "wf");
      return x.status === "done" ? x : undefined;
    }, 60000, "the confirmed resync done");
    expect(p).toMatchObject({ phase: "done", deactivated: N - PUSHED_AGAIN, failed: 0, confirmedCount: N - PUSHED_AGAIN, dropped: PUSHED_AGAIN });
    expect(p.holdReason).toMatch(/100 dropped: the IdP pushed them again/);
    expect(p.firstHoldReason).toMatch(/store holds no user/);
    await waitIdle(e, "wf");
    const after = await platformUsers(e);
    const active = after.filter((u) => u.active !== false).map((u) => u.userName.toLowerCase()).sort();
    expect(active).toEqual(Array.from({ length: PUSHED_AGAIN }, (_, i) => name(i)).sort());
    const audit = await request(adminApp(e)).get("/admin/directories/wf/resync/audit").set(auth);
    expect(audit.body[0]).toMatchObject({ action: "confirm", resync: held.id, count: N - PUSHED_AGAIN, dropped: PUSHED_AGAIN, by: expect.stringMatching(/^alice/) });
    expect(await heldGauge(e)).toBe(0);
  }, 90000);
});

