/**
 * Member deltas under platform errors. One PATCH per step adds a member and removes the previous one,
 * so each group reconcile makes an add call and then a remove call; the simulator fails half of all
 * calls (5xx). A reconcile whose add went through and whose remove did not has half-applied its delta;
 * if the next change removes the member just added, that member must still leave the platform group.
 * (Before the fix the bridge forgot such members: the platform group kept ~6 of 39 removed members with
 * the group's sync state `synced`, found by bench:soak.)
 */
import { startFaultEnv, until, userBody, type FaultEnv } from "../helpers/fault-env";

const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const STEPS = 40;

let e: FaultEnv;
beforeAll(async () => {
  e = await startFaultEnv({ sync: { backoffMs: 100, maxBackoffMs: 500 } });
  await e.startServer();
  await e.startWorker();
}, 60000);
afterAll(async () => e?.close(), 30000);

describe("group member deltas while the platform fails half of all calls", () => {
  it("should leave the platform group with exactly the bridge's members", async () => {
    const idp = e.idp();
    const ids: string[] = [];
    for (let i = 0; i < STEPS; i++) ids.push(String((await idp.send("POST", "/Users", userBody(`rotating.${i}@example.com`))).body!.id));
    const group = await idp.send("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Rotating", members: [{ value: ids[0] }] });
    const gid = String(group.body!.id);
    await until("the group and its users on the platform", 20000, async () => (await e.diff()).length === 0, 250);

    await e.sim.setFaults({ errors: { rate: 0.5 } });
    // requests that reached the platform, answered or failed
    const requests = async () => { const c = (await e.sim.state()).counters; return c.total.reads + c.total.writes + c.faults.errors; };
    for (let i = 1; i < STEPS; i++) {
      const before = await requests();
      const r = await idp.send("PATCH", `/Groups/${gid}`, {
        schemas: [PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: ids[i] }] }, { op: "remove", path: `members[value eq "${ids[i - 1]}"]` }],
      });
      expect(r.status).toBe(204);
      // the next step once a reconcile has called the platform since this one (it may still be retrying: the
      // next change then lands on a half-applied delta, which is the case under test)
      await until("a platform call after the step", 20000, async () => (await requests()) > before, 20);
    }
    const injected = (await e.sim.state()).counters.faults.errors;
    await e.sim.setFaults({});

    let last: string[] = [];
    await until("the platform group to equal the bridge's", 20000, async () => (last = await e.diff()).length === 0, 250)
      .catch((err: Error) => { throw new Error(`${err.message}\n${last.join("\n")}`); });
    expect(injected).toBeGreaterThan(10);
    const platformGroup = (await e.sim.state()).scim.groups.find((g) => g.displayName === "Rotating")!;
    expect(platformGroup.members.map((m) => m.value)).toEqual(await e.state.platformIds("wf", "user", [ids[STEPS - 1]]));
    expect(await e.counts()).toEqual({ pending: 0, synced: STEPS + 1, failed: 0, deprovisioned: 0 });
  }, 60000);
});
