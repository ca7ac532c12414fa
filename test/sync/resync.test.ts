/**
 * Full resync of a workforce directory (issue 4 item 6), started through the admin API: drift injected in
 * the simulator — a platform user deleted, changed, deactivated, a group member removed, a bridge-created
 * user whose SCIM user vanished from the store without a reconcile — is repaired and counted in the final
 * summary; a resync with no drift makes no write call; two resyncs of one directory never run at once.
 */
import { ScimApi } from "../../src/platform/scim-api";
import type { ScimUserInput } from "../../src/platform";
import request from "supertest";
import {
  ADMIN_TOKEN, adminApp, adminConfig, dropUserBehindBridge, getResync, platformScim, postResync, resyncThroughAdmin, writes,
} from "../helpers/resync";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { reconcileJobs } from "../helpers/sync-wait";
import { directoryQueue } from "../helpers/directory-queue";

const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

let e: SyncEnv;
const ids: Record<string, string> = {};
let groupId = "";

beforeAll(async () => {
  e = await startSyncEnv({ config: adminConfig });
  for (const n of ["ok1", "ok2", "del", "chg", "act", "orphan", "m1", "m2", "m3"]) {
    const res = await e.scim("wf").post("/Users", userBody(`rs.${n}@example.com`, { displayName: `RS ${n}` }));
    expect(res.status).toBe(201);
    ids[n] = res.body.id;
  }
  const g = await e.scim("wf").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Resync Team", members: ["m1", "m2", "m3"].map((n) => ({ value: ids[n] })) });
  expect(g.status).toBe(201);
  groupId = g.body.id;
  await waitFor(async () => (await e.simState()).scim.groups.find((x) => x.displayName === "Resync Team")?.members.length === 3, 15000, "group synced");
  await waitIdle(e, "wf");
});
afterAll(async () => e.close());

const pid = async (n: string) => (await e.state.get("wf", "user", ids[n])).platformId!;
const platformUser = async (userName: string) => (await e.simState()).scim.users.find((u) => u.userName === userName);

describe("full resync (workforce)", () => {
  it("should make no write call and count everything unchanged when nothing drifted, reaching 100%", async () => {
    const before = await writes(e);
    const since = Date.now();
    const p = await resyncThroughAdmin(e, "wf");
    expect(p).toMatchObject({ status: "done", phase: "done", total: 10, done: 10, unchanged: 10, created: 0, updated: 0, deactivated: 0, failed: 0, requestedBy: "admin-api" });
    expect(await writes(e)).toBe(before);
    // the users the plan found in step are counted without a reconcile of their own
    const jobs = await directoryQueue(e.queues, "wf").getJobs(["completed", "failed", "active", "wait", "delayed"], 0, -1);
    expect(jobs.filter((j) => j?.name === "reconcile" && j.data.kind === "user" && j.timestamp >= since)).toEqual([]);
  });

  it("should repair every injected drift and count each in the summary", async () => {
    const orphanPid = await pid("orphan");
    await platformScim(e, "DELETE", `/Users/${await pid("del")}`);
    await platformScim(e, "PATCH", `/Users/${await pid("chg")}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Changed On Platform" }] });
    await platformScim(e, "PATCH", `/Users/${await pid("act")}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "active", value: false }] });
    const platformGroup = (await e.simState()).scim.groups.find((x) => x.displayName === "Resync Team")!;
    await platformScim(e, "PATCH", `/Groups/${platformGroup.id}`, { schemas: [PATCH], Operations: [{ op: "remove", path: `members[value eq "${await pid("m3")}"]` }] });
    // the IdP's delete of "orphan" never reached a reconcile, and the bridge forgot it: only the platform knows it
    await dropUserBehindBridge(e, "wf", ids.orphan, true);

    const p = await resyncThroughAdmin(e, "wf");
    expect(p).toMatchObject({ status: "done", total: 10, done: 10, created: 1, updated: 3, deactivated: 1, unchanged: 5, failed: 0 });

    const state = await e.simState();
    expect(state.scim.users.find((u) => u.userName === "rs.del@example.com")).toMatchObject({ active: true, externalId: `wf:${ids.del}` });
    expect(await pid("del")).toBe(state.scim.users.find((u) => u.userName === "rs.del@example.com")!.id);
    expect(await platformUser("rs.chg@example.com")).toMatchObject({ displayName: "RS chg", active: true });
    expect(await platformUser("rs.act@example.com")).toMatchObject({ active: true });
    expect(state.scim.groups.find((x) => x.id === platformGroup.id)!.members.map((m) => m.value).sort())
      .toEqual([await pid("m1"), await pid("m2"), await pid("m3")].sort());
    expect(state.scim.users.find((u) => u.id === orphanPid)).toMatchObject({ active: false, externalId: `wf:${ids.orphan}` });
    expect(await e.state.get("wf", "user", ids.orphan)).toMatchObject({ status: "deprovisioned", platformId: orphanPid });
    expect(await e.state.counts("wf")).toMatchObject({ failed: 0, pending: 0 });
  });

  it("should find nothing to do on the next resync", async () => {
    await waitIdle(e, "wf");
    const before = await writes(e);
    const p = await resyncThroughAdmin(e, "wf");
    // the orphan is still on the platform (deactivated), so it is listed but left alone
    expect(p).toMatchObject({ total: 9, done: 9, unchanged: 9, created: 0, updated: 0, deactivated: 0, failed: 0 });
    expect(await writes(e)).toBe(before);
  });

  it("should re-create a deleted platform user who was a group member and put it back in the group", async () => {
    await platformScim(e, "DELETE", `/Users/${await pid("m2")}`);
    // the create waits for the group's repair to have run, while the bridge still holds the user's old platform id
    const orig = ScimApi.prototype.createUser;
    const since = Date.now();
    const spy = jest.spyOn(ScimApi.prototype, "createUser").mockImplementation(async function (this: ScimApi, u: ScimUserInput) {
      await waitFor(async () => (await reconcileJobs(e, "wf", "group", groupId, ["completed", "failed"])).some((j) => j.finishedOn! >= since), 10000, "the group's repair");
      return orig.call(this, u);
    });
    const p = await resyncThroughAdmin(e, "wf").finally(() => spy.mockRestore());
    expect(p).toMatchObject({ created: 1, failed: 0 });
    await waitIdle(e, "wf");
    const state = await e.simState();
    const m2 = state.scim.users.find((u) => u.userName === "rs.m2@example.com")!;
    expect(m2.id).toBe(await pid("m2"));
    expect(state.scim.groups.find((x) => x.displayName === "Resync Team")!.members.map((m) => m.value).sort())
      .toEqual([await pid("m1"), m2.id, await pid("m3")].sort());
    expect(await e.state.counts("wf")).toMatchObject({ failed: 0 });
  });

  it("should never run two resyncs of a directory at once: 409 on the admin API, 'already running' on the queue", async () => {
    // hold the one repair this resync makes, so it stays running while the test knocks twice
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    let entered = false;
    const orig = ScimApi.prototype.replaceUser;
    const spy = jest.spyOn(ScimApi.prototype, "replaceUser").mockImplementation(async function (this: ScimApi, id: string, u: ScimUserInput) {
      entered = true;
      await gate;
      return orig.call(this, id, u);
    });
    try {
      await platformScim(e, "PATCH", `/Users/${await pid("ok1")}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Drifted" }] });
      const before = await getResync(e, "wf");
      expect((await postResync(e, "wf")).status).toBe(202);
      await waitFor(() => entered, 10000, "the repair to start");
      const running = await getResync(e, "wf");
      expect(running).toMatchObject({ status: "running", phase: "reconciling" });
      expect(running.id).not.toBe(before.id);

      const again = await postResync(e, "wf");
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/running/);

      // a resync job that reaches a worker anyway (queued by the CLI, a schedule) finds the lock held
      await e.runtime!.queues.enqueueResync("wf", "test");
      const queue = directoryQueue(e.runtime!.queues, "wf");
      await waitFor(async () => (await queue.getJobs(["completed"])).some((j) => j.name === "resync" && j.data.requestedBy === "test" && j.returnvalue === "already running"), 10000, "second resync refused");
      expect((await getResync(e, "wf")).id).toBe(running.id);

      release();
      const done = await waitFor(async () => {
        const p = await getResync(e, "wf");
        return p.status === "done" ? p : undefined;
      }, 10000, "resync done");
      expect(done).toMatchObject({ id: running.id, updated: 1, unchanged: 8, done: 9, total: 9 });
      expect(await platformUser("rs.ok1@example.com")).toMatchObject({ displayName: "RS ok1" });
    } finally {
      release();
      spy.mockRestore();
    }
  });
});

describe("admin resync API", () => {
  it("should refuse a request without the admin token, and a directory that does not exist", async () => {
    expect((await request(adminApp(e)).post("/admin/directories/wf/resync")).status).toBe(401);
    expect((await request(adminApp(e)).post("/admin/directories/wf/resync").set("Authorization", `Bearer ${ids.ok1}`)).status).toBe(401);
    expect((await request(adminApp(e)).post("/admin/directories/nope/resync").set("Authorization", `Bearer ${ADMIN_TOKEN}`)).status).toBe(404);
  });
});
