/**
 * Issue 11 item 2: "Group reconcile costs O(change)." The delta is computed inside Redis from the members
 * that changed since the group's last reconcile (groupMemberDelta-n.lua), so:
 *   - a reconcile that runs after several PATCHes applies exactly their net difference (the SCIM layer's
 *     member delta is not lost on the way), in one add and one remove call;
 *   - a one-member change to a 50,000-member group looks at that member only (a probe of 50,000 members
 *     that a full diff would send shows it) and sends one member to the platform.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, endpointCalls, reconcileJobs, simGroup, simUser, waitIdle, waitReconcileJobs, waitStatus } from "../helpers/sync-wait";
import { pauseDirectory, resumeDirectory } from "../../src/sync/control/directory-control";
import { SyncStateStore } from "../../src/sync/state/sync-state";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv(); });
afterAll(async () => e.close());
afterEach(() => { e.sim.setFaults({}); });

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const patch = (gid: string, Operations: object[]) => e.scim("wf").patch(`/Groups/${gid}`, { schemas: [PATCH_OP], Operations });
const pidsOf = async (names: string[]) => Promise.all(names.map(async (n) => (await simUser(e, n))!.id));

/** Users of these names and a group of the first `members` of them, all synced and the queue idle; returns their ids. */
async function syncedGroup(displayName: string, names: string[], members: number): Promise<{ gid: string; ids: string[] }> {
  const ids = await Promise.all(names.map((n) => createUser(e, "wf", n)));
  for (const id of ids) await waitStatus(e, "wf", "user", id, "synced");
  const gid = await createGroup(e, "wf", displayName, ids.slice(0, members));
  await waitStatus(e, "wf", "group", gid, "synced");
  await waitFor(async () => (await simGroup(e, displayName))?.members.length === members, 10000, "the group's first members on the platform");
  await waitIdle(e, "wf");
  return { gid, ids };
}

describe("group reconcile: O(change)", () => {
  it("should apply exactly the net difference of several PATCHes made before the group's reconcile runs", async () => {
    const names = ["nd.a@example.com", "nd.b@example.com", "nd.c@example.com", "nd.d@example.com", "nd.e@example.com"];
    const { gid, ids: [a, b, c, d, x] } = await syncedGroup("Net Delta", names, 3);

    // the reconciles wait while the IdP sends several PATCHes
    await pauseDirectory(e.state, "wf", "paused by the test");
    expect([200, 204]).toContain((await patch(gid, [{ op: "add", path: "members", value: [{ value: d }, { value: x }] }])).status);
    expect([200, 204]).toContain((await patch(gid, [{ op: "remove", path: `members[value eq "${a}"]` }])).status);
    expect([200, 204]).toContain((await patch(gid, [{ op: "remove", path: `members[value eq "${x}"]` }])).status);
    expect([200, 204]).toContain((await patch(gid, [{ op: "add", path: "members", value: [{ value: a }] }, { op: "remove", path: `members[value eq "${b}"]` }])).status);
    const patchesBefore = await endpointCalls(e, "PATCH /scim/v2/Groups/:id");
    await resumeDirectory(e.queues, e.state, "wf");

    // net: +d −b (a left and came back, x came and left)
    const want = (await pidsOf(["nd.a@example.com", "nd.c@example.com", "nd.d@example.com"])).sort();
    await waitFor(async () => {
      const members = (await simGroup(e, "Net Delta"))?.members.map((m) => m.value).sort();
      return JSON.stringify(members) === JSON.stringify(want) ? true : undefined;
    }, 10000, "the net difference on the platform");
    await waitIdle(e, "wf");
    expect(await endpointCalls(e, "PATCH /scim/v2/Groups/:id") - patchesBefore).toBe(2); // one add (d), one remove (b)
    expect((await e.state.members(e.state.appliedMembersKey("wf", gid))).sort()).toEqual([a, c, d].sort());
    expect(await e.redis.hlen(e.state.keys("wf").changedMembers(gid))).toBe(0);
  });

  it("should remove the members a remove names beside non-members, with one call, and leave nothing waiting", async () => {
    // writeGroup records every value of a remove that removed a member as changed (it does not read which
    // were members): the non-members must cost the reconcile a look, not a platform call
    const { gid, ids: [a, b, y] } = await syncedGroup("Remove Named", ["rn.a@example.com", "rn.b@example.com", "rn.y@example.com"], 2);

    const patchesBefore = await endpointCalls(e, "PATCH /scim/v2/Groups/:id");
    expect([200, 204]).toContain((await patch(gid, [{ op: "remove", path: "members", value: [{ value: a }, { value: y }, { value: "never-a-member" }] }])).status);
    const [bPid] = await pidsOf(["rn.b@example.com"]);
    await waitFor(async () => {
      const members = (await simGroup(e, "Remove Named"))?.members.map((m) => m.value);
      return JSON.stringify(members) === JSON.stringify([bPid]) ? true : undefined;
    }, 10000, "the member's removal on the platform");
    await waitIdle(e, "wf");
    expect(await endpointCalls(e, "PATCH /scim/v2/Groups/:id") - patchesBefore).toBe(1);
    expect(await e.state.members(e.state.appliedMembersKey("wf", gid))).toEqual([b]);
    expect(await e.redis.hlen(e.state.keys("wf").changedMembers(gid))).toBe(0);
    expect((await e.state.get("wf", "group", gid)).status).toBe("synced");
  });

  it("should apply the changes an earlier release recorded in its sorted set, and delete that set", async () => {
    const { gid, ids: [, d] } = await syncedGroup("Legacy Changes", ["lg.a@example.com", "lg.d@example.com"], 1);

    // an earlier release took the PATCH: its change is in the ZSET s:gc:<id>, none in this release's hash
    await pauseDirectory(e.state, "wf", "paused by the test");
    expect([200, 204]).toContain((await patch(gid, [{ op: "add", path: "members", value: [{ value: d }] }])).status);
    const [changed, legacy] = e.state.changedMembersKeys("wf", gid);
    const recorded = await e.redis.hgetall(changed);
    expect(Object.keys(recorded)).toEqual([d]);
    await e.redis.multi().del(changed).zadd(legacy, Number(recorded[d]), d).exec();
    await resumeDirectory(e.queues, e.state, "wf");

    const want = (await pidsOf(["lg.a@example.com", "lg.d@example.com"])).sort();
    await waitFor(async () => {
      const members = (await simGroup(e, "Legacy Changes"))?.members.map((m) => m.value).sort();
      return JSON.stringify(members) === JSON.stringify(want) ? true : undefined;
    }, 10000, "the earlier release's change on the platform");
    await waitIdle(e, "wf");
    expect(await e.redis.exists(legacy, changed)).toBe(0);
  });

  it("should not rename a group again when only its membership delta failed, and apply the members on the retry", async () => {
    const [a, b] = await Promise.all(["hd.a@example.com", "hd.b@example.com"].map((n) => createUser(e, "wf", n)));
    for (const id of [a, b]) await waitStatus(e, "wf", "user", id, "synced");
    await waitIdle(e, "wf");
    // the platform takes one call, the group's create, and refuses the member PATCH after it (429)
    e.sim.setFaults({ rateLimit: { max: 1, durationMs: 600000, retryAfterSeconds: 1 } });
    const gid = await createGroup(e, "wf", "Half Done", [a, b]);
    const half = await waitFor(async () => { const st = await e.state.get("wf", "group", gid); return st.drift ? st : undefined; }, 10000, "the failed delta recorded");
    expect(half).toMatchObject({ drift: "members", status: "pending" });
    expect(half.platformId).toBeDefined();
    const patchesBefore = await endpointCalls(e, "PATCH /scim/v2/Groups/:id");
    e.sim.setFaults({});

    await waitStatus(e, "wf", "group", gid, "synced");
    expect((await simGroup(e, "Half Done"))?.members.map((m) => m.value).sort()).toEqual((await pidsOf(["hd.a@example.com", "hd.b@example.com"])).sort());
    // the retry compared members with the platform and added them: one PATCH, no second rename
    expect(await endpointCalls(e, "PATCH /scim/v2/Groups/:id") - patchesBefore).toBe(1);
    expect(await e.state.get("wf", "group", gid)).toMatchObject({ status: "synced", drift: undefined });
  });

  it("should answer a run of a synced group that nothing changed from its sync state, and apply a change after it", async () => {
    // with several workers a pushed group's second job finds its create's job applied everything: it must
    // not claim the name, check ownership, compute a delta or settle one again
    const { gid, ids: [, b] } = await syncedGroup("Nothing Changed", ["nc.a@example.com", "nc.b@example.com"], 1);
    const runs = (await reconcileJobs(e, "wf", "group", gid)).length;
    const syncedAt = (await e.state.get("wf", "group", gid)).syncedAt;
    const delta = jest.spyOn(SyncStateStore.prototype, "memberDelta");
    const settle = jest.spyOn(SyncStateStore.prototype, "settleMembers");
    try {
      await e.queues.enqueue("wf", "group", gid);
      const jobs = await waitReconcileJobs(e, "wf", "group", gid, runs + 1);
      const last = jobs.reduce((x, y) => ((y.finishedOn ?? 0) > (x.finishedOn ?? 0) ? y : x));
      expect(last.returnvalue).toBe("unchanged");
      expect(delta).not.toHaveBeenCalled();
      expect(settle).not.toHaveBeenCalled();
      expect((await e.state.get("wf", "group", gid)).syncedAt).toBe(syncedAt);

      // the next member change is applied as before
      expect([200, 204]).toContain((await patch(gid, [{ op: "add", path: "members", value: [{ value: b }] }])).status);
      const want = (await pidsOf(["nc.a@example.com", "nc.b@example.com"])).sort();
      await waitFor(async () => {
        const members = (await simGroup(e, "Nothing Changed"))?.members.map((m) => m.value).sort();
        return JSON.stringify(members) === JSON.stringify(want) ? true : undefined;
      }, 10000, "the new member on the platform");
      expect(delta).toHaveBeenCalled();
    } finally {
      delta.mockRestore();
      settle.mockRestore();
    }
  });

  it("should look at one member and send one member when one member joins a 50,000-member group", async () => {
    const gid = await createGroup(e, "wf", "Fifty Thousand");
    await waitStatus(e, "wf", "group", gid, "synced");
    const joiner = await createUser(e, "wf", "joiner@example.com");
    await waitStatus(e, "wf", "user", joiner, "synced");
    await waitIdle(e, "wf");

    // 50,000 members seeded straight into the store as a probe: SCIM members with platform ids that are
    // NOT in the applied set. A reconcile that looked at every member would send all 50,000 to the platform
    // (which does not know these ids and would refuse them); one that looks at what changed sends one.
    const P = `${e.prefix}:{wf}:`;
    const N = 50_000;
    for (let s = 0; s < N; s += 5000) {
      const pipe = e.redis.pipeline();
      const ids = Array.from({ length: 5000 }, (_, i) => `seed-${s + i}`);
      pipe.hset(`${P}gm:${gid}`, ...ids.flatMap((id) => [id, "U"]));
      for (const id of ids) pipe.hset(`${P}s:u:${id}`, "pid", `platform-${id}`, "st", "synced");
      await pipe.exec();
    }

    const patchesBefore = await endpointCalls(e, "PATCH /scim/v2/Groups/:id");
    expect([200, 204]).toContain((await patch(gid, [{ op: "add", path: "members", value: [{ value: joiner }] }])).status);
    const [pid] = await pidsOf(["joiner@example.com"]);
    await waitFor(async () => (await simGroup(e, "Fifty Thousand"))?.members.some((m) => m.value === pid), 10000, "the new member on the platform");
    await waitIdle(e, "wf");
    expect(await endpointCalls(e, "PATCH /scim/v2/Groups/:id") - patchesBefore).toBe(1);
    expect((await simGroup(e, "Fifty Thousand"))!.members.map((m) => m.value)).toEqual([pid]);
    expect(await e.state.members(e.state.appliedMembersKey("wf", gid))).toEqual([joiner]);
    expect(await e.redis.hlen(e.state.keys("wf").changedMembers(gid))).toBe(0);
    expect((await e.state.get("wf", "group", gid)).status).toBe("synced");
  });
});
