/**
 * Issue 4 §2: "Sync state per resource in Redis: platform id, hash of the last payload applied, status
 * (`pending | synced | failed | deprovisioned`), attempts, last error (the platform's message), timestamps.
 * A reconcile whose computed payload equals the last applied one makes no call."
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, simUser, waitReconcileJobs, waitStatus } from "../helpers/sync-wait";
import { payloadHash } from "../../src/sync/mapping/payload-hash";
import { workforceUserPayload } from "../../src/sync/mapping/workforce-user";

let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv();
  await waitFor(async () => (await e.simState()).counters.endpoints["GET /v1/deployments"]?.reads === 2, 5000, "the key checks");
});
afterAll(async () => e.close());
afterEach(() => { e.sim.setFaults({}); });

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

describe("sync state of a workforce user", () => {
  it("should be pending until the first reconcile applies it, then synced with platform id, payload hash and timestamps", async () => {
    e.sim.setFaults({ latency: { fixedMs: 400 } });
    const before = Date.now();
    const id = await createUser(e, "wf", "state.new@example.com");
    const pending = await waitStatus(e, "wf", "user", id, "pending", 5000);
    expect(pending).toMatchObject({ attempts: 0 });
    expect(pending.platformId).toBeUndefined();
    expect(await e.redis.sismember(e.state.statusKey("wf", "pending"), `u:${id}`)).toBe(1);

    const st = await waitStatus(e, "wf", "user", id, "synced", 10000);
    const u = await simUser(e, "state.new@example.com");
    const desired = await e.users.get("wf", id);
    expect(st).toMatchObject({ platformId: u!.id, attempts: 0, hash: payloadHash(workforceUserPayload("wf", desired!)) });
    expect(st.lastError).toBeUndefined();
    expect(Date.parse(st.syncedAt!)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(st.changedAt!)).toBeGreaterThanOrEqual(before);
    expect(await e.redis.sismember(e.state.statusKey("wf", "pending"), `u:${id}`)).toBe(0);
    expect(await e.redis.sismember(e.state.statusKey("wf", "synced"), `u:${id}`)).toBe(1);
  });

  it("should count attempts and keep the platform's last error while retrying, and clear both once synced", async () => {
    e.sim.setFaults({ errors: { next: 1, statuses: [502] } }); // one job attempt: the transport makes one try
    const id = await createUser(e, "wf", "state.retry@example.com");
    const retrying = await waitFor(async () => {
      const s = await e.state.get("wf", "user", id);
      return s.attempts === 1 ? s : undefined;
    }, 5000, "a recorded attempt");
    expect(retrying).toMatchObject({ status: "pending", attempts: 1, lastError: "simulated 502" });
    const st = await waitStatus(e, "wf", "user", id, "synced", 10000);
    expect(st.attempts).toBe(0);
    expect(st.lastError).toBeUndefined();
    const [job] = await waitReconcileJobs(e, "wf", "user", id);
    expect(job.attemptsMade).toBe(2); // the failed attempt and the one that synced
  });

  it("should be failed with the platform's message word for word, then deprovisioned after a deactivation", async () => {
    // a platform user the bridge does not manage holds the userName the IdP renames ours to
    await fetch(`${e.sim.baseUrl}/scim/v2/Users`, {
      method: "POST", headers: { authorization: `Bearer ${PLATFORM_KEY}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ userName: "state.taken@example.com" }),
    });
    const id = await createUser(e, "wf", "state.mine@example.com");
    const synced = await waitStatus(e, "wf", "user", id, "synced");
    await e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "replace", path: "userName", value: "state.taken@example.com" }] });
    const failed = await waitStatus(e, "wf", "user", id, "failed");
    expect(failed).toMatchObject({ lastError: "userName state.taken@example.com already exists", attempts: 1, platformId: synced.platformId, hash: synced.hash });

    await e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "replace", value: { userName: "state.mine@example.com", active: false } }] });
    const st = await waitStatus(e, "wf", "user", id, "deprovisioned");
    expect(st).toMatchObject({ attempts: 0, platformId: synced.platformId });
    expect(st.lastError).toBeUndefined();
    expect(await simUser(e, "state.mine@example.com")).toMatchObject({ active: false });
  });

  it("should make no platform call when the desired state changes but the payload does not (an unmapped attribute)", async () => {
    const id = await createUser(e, "wf", "state.quiet@example.com");
    const st = await waitStatus(e, "wf", "user", id, "synced");
    await waitReconcileJobs(e, "wf", "user", id, 1);
    const calls = (await e.simState()).counters.total;

    const res = await e.scim("wf").patch(`/Users/${id}`, { Operations: [{ op: "add", path: `${ENTERPRISE}:department`, value: "Finance" }] });
    expect(res.status).toBe(200);
    const [latest] = (await waitReconcileJobs(e, "wf", "user", id, 2)).sort((a, b) => b.timestamp - a.timestamp);
    expect(latest.returnvalue).toBe("unchanged"); // completed: every call it would make is made
    expect((await e.simState()).counters.total).toEqual(calls);
    expect(await e.state.get("wf", "user", id)).toEqual(st);
  });
});
