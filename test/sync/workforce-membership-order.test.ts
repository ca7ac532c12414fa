/**
 * Issue 4 §3: memberships are applied "never before both sides exist on the platform (a membership waiting
 * for a user is retried when that user syncs, not lost)". The user's first reconcile fails (one injected
 * 503: the transport makes one try per job attempt); with a directory concurrency of 1 and a 0.5–1 s backoff the
 * group's reconcile runs meanwhile and must leave the membership waiting, not send a member the platform
 * does not have (the simulator would answer 400) and not drop it. Directory `wf-par` (4 at a time) covers
 * a membership added while the user's first reconcile is running, after it read the user's groups.
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, reconcileJobs, simGroup, waitStatus } from "../helpers/sync-wait";

let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({ wf: { concurrency: 1 }, directories: [{ id: "wf-par", concurrency: 4 }], config: { sync: { backoffMs: 1000 } } });
  // the start-up key checks (GET /v1/deployments of wf, em and wf-par) must not eat the injected errors
  await waitFor(async () => (await e.simState()).counters.endpoints["GET /v1/deployments"]?.reads === 3, 5000, "the key checks");
});
afterAll(async () => e.close());
afterEach(() => { e.sim.setFaults({}); });

describe("workforce target: membership order", () => {
  it("should leave a membership waiting while its user has no platform id and apply it when the user syncs", async () => {
    e.sim.setFaults({ errors: { next: 1, statuses: [503] } });
    const uid = await createUser(e, "wf", "late.member@example.com");
    const gid = await createGroup(e, "wf", "Waits For Member", [uid]);

    // the group syncs first, without the member
    const gst = await waitStatus(e, "wf", "group", gid, "synced", 10000);
    const ust = await e.state.get("wf", "user", uid);
    expect(ust.platformId).toBeUndefined();
    expect(ust).toMatchObject({ status: "pending", attempts: 1, lastError: "simulated 503" });
    expect(await simGroup(e, "Waits For Member")).toMatchObject({ id: gst.platformId, members: [] });
    expect(await e.state.members(e.state.appliedMembersKey("wf", gid))).toEqual([]);

    // the user's retry syncs it and asks for the group again, which applies the membership
    const { platformId } = await waitStatus(e, "wf", "user", uid, "synced", 10000);
    await waitFor(async () => (await simGroup(e, "Waits For Member"))?.members.length === 1, 10000, "the waiting membership");
    expect((await simGroup(e, "Waits For Member"))!.members.map((m) => m.value)).toEqual([platformId]);
    expect(await e.state.members(e.state.appliedMembersKey("wf", gid))).toEqual([uid]);
    expect(await reconcileJobs(e, "wf", "group", gid, ["failed"])).toEqual([]);
    expect((await e.state.get("wf", "group", gid)).status).toBe("synced");
  });

  it("should re-run a group that holds a member back for its batch at the directory's last turn, behind the user it waits for", async () => {
    // a waiting group re-run at its first turn went ahead of the users it waited for, and enough of them
    // (2,700 in bench/scale on Redis Cluster) took every run of the shard's worker: the users never ran
    const ready = await createUser(e, "wf", "turn.ready@example.com");
    await waitStatus(e, "wf", "user", ready, "synced", 10000);
    e.sim.setFaults({ errors: { next: 1, statuses: [503] } });
    const late = await createUser(e, "wf", "turn.late@example.com");
    await waitFor(async () => ((await e.state.get("wf", "user", late)).attempts ?? 0) >= 1, 10000, "the late user's failed first try");
    const gid = await createGroup(e, "wf", "Waits In Line", [ready, late]);

    // the group holds the ready member back (a batch of one of two, the other still syncing) and waits
    const last = e.queues.waitingPriority("wf");
    const [waiting] = await waitFor(async () => {
      const jobs = await reconcileJobs(e, "wf", "group", gid, ["delayed", "wait", "active", "completed"]);
      return jobs.some((j) => j.priority === last) ? jobs : undefined;
    }, 10000, "the waiting group's job at the directory's last turn");
    const [userJob] = await reconcileJobs(e, "wf", "user", late, ["delayed", "wait", "active", "completed"]);
    expect(userJob.priority).toBeLessThan(waiting.priority);

    const pids = await Promise.all([ready, late].map(async (u) => (await waitStatus(e, "wf", "user", u, "synced", 10000)).platformId));
    await waitFor(async () => (await simGroup(e, "Waits In Line"))?.members.length === 2, 10000, "both memberships on the platform");
    expect((await simGroup(e, "Waits In Line"))!.members.map((m) => m.value).sort()).toEqual(pids.sort());
    expect(await reconcileJobs(e, "wf", "group", gid, ["failed"])).toEqual([]);
  });

  it("should apply a membership added while the user's first reconcile runs, after the group already synced without it", async () => {
    // both exist on the platform already, so the group's reconcile (POST answered 409, GET, adopt) outruns
    // the user's (POST answered 409, GET, PUT)
    await fetch(`${e.sim.baseUrl}/scim/v2/Groups`, {
      method: "POST", headers: { authorization: `Bearer ${PLATFORM_KEY}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ displayName: "Joined Mid-Reconcile" }),
    });
    await fetch(`${e.sim.baseUrl}/scim/v2/Users`, {
      method: "POST", headers: { authorization: `Bearer ${PLATFORM_KEY}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ userName: "mid.reconcile@example.com" }),
    });
    e.sim.setFaults({ latency: { fixedMs: 400 } });
    const uid = await createUser(e, "wf-par", "mid.reconcile@example.com");
    await waitFor(async () => (await reconcileJobs(e, "wf-par", "user", uid, ["active"])).length === 1, 5000, "the user's reconcile to run");
    const gid = await createGroup(e, "wf-par", "Joined Mid-Reconcile", [uid]);

    await waitStatus(e, "wf-par", "group", gid, "synced", 5000);
    expect((await e.state.get("wf-par", "user", uid)).platformId).toBeUndefined(); // the group synced first, without the member
    const { platformId } = await waitStatus(e, "wf-par", "user", uid, "synced", 5000);
    await waitFor(async () => (await simGroup(e, "Joined Mid-Reconcile"))?.members.length === 1, 5000, "the membership on the platform");
    expect((await simGroup(e, "Joined Mid-Reconcile"))!.members.map((m) => m.value)).toEqual([platformId]);
  });
});
