import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { waitReconcileJobs } from "../helpers/sync-wait";

let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv(); });
afterAll(async () => e.close());

const platformUser = async (userName: string) => (await e.simState()).scim.users.find((u) => u.userName.toLowerCase() === userName.toLowerCase());

describe("workforce target: users", () => {
  it("should create a platform user for a SCIM user, marked with the bridge's externalId", async () => {
    const res = await e.scim("wf").post("/Users", userBody("create.me@example.com", { displayName: "Create Me", title: "Dev" }));
    expect(res.status).toBe(201);
    const u = await waitFor(() => platformUser("create.me@example.com"), 10000, "platform user");
    expect(u).toMatchObject({ userName: "create.me@example.com", displayName: "Create Me", title: "Dev", active: true, externalId: `wf:${res.body.id}` });
    const st = await waitFor(async () => (await e.state.get("wf", "user", res.body.id)).status === "synced" && e.state.get("wf", "user", res.body.id));
    expect(st).toMatchObject({ platformId: u!.id, status: "synced" });
  });

  it("should deactivate the platform user on an IdP deactivation (O6) and mark it deprovisioned", async () => {
    const res = await e.scim("wf").post("/Users", userBody("deact@example.com"));
    await waitFor(() => platformUser("deact@example.com"));
    await e.scim("wf").patch(`/Users/${res.body.id}`, { Operations: [{ op: "replace", value: { active: false } }] });
    await waitFor(async () => (await platformUser("deact@example.com"))?.active === false, 10000, "deactivation");
    expect((await e.state.get("wf", "user", res.body.id)).status).toBe("deprovisioned");
  });

  it("should make no platform call when a reconcile's payload equals the last one applied", async () => {
    const res = await e.scim("wf").post("/Users", userBody("quiet@example.com"));
    await waitFor(async () => (await e.state.get("wf", "user", res.body.id)).status === "synced");
    await waitReconcileJobs(e, "wf", "user", res.body.id, 1);
    const before = (await e.simState()).counters.total;
    await e.runtime!.queues.enqueue("wf", "user", res.body.id);
    // the extra reconcile completed "unchanged", and made no call
    const [latest] = (await waitReconcileJobs(e, "wf", "user", res.body.id, 2)).sort((a, b) => b.timestamp - a.timestamp);
    expect(latest.returnvalue).toBe("unchanged");
    expect((await e.simState()).counters.total).toEqual(before);
  });
});
