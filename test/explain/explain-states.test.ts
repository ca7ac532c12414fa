/**
 * The blockers explain names for a resource in motion or held by its directory, through the admin API over
 * real Redis, real BullMQ workers and the simulator over HTTP: a change still in the outbox (no worker yet),
 * a reconcile running now, one waiting out its retry delay, a resource out of date that nothing queues, a
 * disabled directory and a platform resource another directory manages — each with the words and the
 * action that clears it, and that action clearing it.
 */
import express, { type Express } from "express";
import request from "supertest";
import { ADMIN_TOKEN, adminConfig } from "../helpers/resync";
import { PLATFORM_KEY, SIM_TOKEN, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, waitStatus } from "../helpers/sync-wait";
import { adminRouter } from "../../src/admin/app";
import { startRegistry, type DirectoryRegistry } from "../../src/directories/registry";
import type { Explanation } from "../../src/explain/explain";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let e: SyncEnv;
let registry: DirectoryRegistry;
const saved = process.env.TEST_PLATFORM_KEY;

beforeAll(async () => {
  // the admin process reads the platform with the directory's key variable, as the server does
  process.env.TEST_PLATFORM_KEY = PLATFORM_KEY;
  // no runtime at first (the outbox test starts it); a retry waits 10-20 s, long enough to be seen
  e = await startSyncEnv({ config: { ...adminConfig, sync: { backoffMs: 20000 } }, directories: [{ id: "wf2" }, { id: "dis" }], runtime: false });
  // a registry on Redis, as the server has: disabling a directory writes its record
  registry = await startRegistry(e.config, e.redis);
});
afterAll(async () => {
  await registry.stop();
  await e.close();
  if (saved === undefined) delete process.env.TEST_PLATFORM_KEY; else process.env.TEST_PLATFORM_KEY = saved;
});

/** The admin API on the harness's producer-side queues (there may be no runtime yet) and the Redis registry. */
const admin = (): Express => express().use("/admin", adminRouter({ config: e.config, redis: e.redis, queues: e.queues, registry }));

async function explain(dir: string, resource: string): Promise<Explanation> {
  const res = await request(admin()).get(`/admin/directories/${dir}/explain`).query({ resource }).set(auth);
  expect(res.status).toBe(200);
  return res.body as Explanation;
}
const explainUntil = (dir: string, id: string, code: string, timeoutMs = 15000) =>
  waitFor(async () => { const x = await explain(dir, id); return x.blocker.code === code ? x : undefined; }, timeoutMs, `${dir} ${id} ${code}`) as Promise<Explanation>;
const syncNow = (dir: string, resource: string) => request(admin()).post(`/admin/directories/${dir}/sync-now`).set(auth).send({ resource, by: "test" });

/** PUT /_sim/faults: replaces every fault setting (`{}` clears them). */
async function faults(f: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${e.sim.url}/_sim/faults`, { method: "PUT", headers: { "x-sim-token": SIM_TOKEN, "Content-Type": "application/json" }, body: JSON.stringify(f) });
  expect(res.status).toBe(200);
}

describe("explain of a change not yet taken in", () => {
  it("should say the change waits in the outbox while no worker runs, and a worker takes it", async () => {
    const id = await createUser(e, "wf", "outboxed@example.com");
    const x = await explain("wf", id);
    expect(x.blocker).toEqual({
      code: "in-outbox", message: expect.stringMatching(/^its change waits in the outbox with [1-9]\d* other change\(s\) not yet taken into the backlog$/),
      action: "none: a worker takes it shortly (is a worker running?)",
    });
    expect(x.queue).toMatchObject({ outbox: expect.any(Number), ahead: null, inFlightSince: null });
    await e.startRuntime();
    await waitStatus(e, "wf", "user", id, "synced");
    expect((await explainUntil("wf", id, "in-sync")).blocker.message).toBe("in sync");
  });
});

describe("explain of a reconcile in motion", () => {
  it("should say a reconcile runs now while the platform answers slowly, and its result clears it", async () => {
    // explain without the platform key reads no platform record, so it answers at once while the worker's calls wait
    delete process.env.TEST_PLATFORM_KEY;
    await faults({ latency: { fixedMs: 2000, jitterMs: 0 } });
    try {
      const id = await createUser(e, "wf", "running@example.com");
      const x = await explainUntil("wf", id, "running");
      expect(x.blocker).toEqual({ code: "running", message: expect.stringMatching(/^being reconciled now \(admitted at \S+Z\)$/), action: "none: wait for its result" });
      expect(x.queue.inFlightSince).not.toBeNull();
    } finally {
      process.env.TEST_PLATFORM_KEY = PLATFORM_KEY;
      await faults({});
    }
    await explainUntil("wf", "running@example.com", "in-sync");
  });

  it("should say a failed reconcile waits out its retry delay, and sync-now tries it at once", async () => {
    // the platform answers the first call 500: a transient failure, retried after 10-20 s
    await faults({ errors: { next: 1, statuses: [500] } });
    const id = await createUser(e, "wf", "retrying@example.com");
    await waitFor(async () => (await e.state.get("wf", "user", id)).attempts > 0, 15000, "first attempt failed");
    // another user's answered calls tell the worker the platform answers again (a 5xx marked it unreachable)
    const other = await createUser(e, "wf", "answered@example.com");
    await waitStatus(e, "wf", "user", other, "synced");
    await waitFor(async () => (await e.state.meta("wf")).unreachableSince === undefined, 15000, "platform reachable again");
    const x = await explain("wf", id);
    expect(x.blocker).toEqual({
      code: "retrying", message: expect.stringMatching(/^its reconcile failed \(attempt 1: .+\) and waits out its retry delay since \S+Z$/),
      action: `none: it is retried with backoff; scim-bridge sync-now wf ${id} (POST /admin/directories/wf/sync-now {"resource":"${id}"}) tries at once`,
    });
    const res = await syncNow("wf", id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ before: { code: "retrying" }, sync: { status: "synced" } });
    expect((await explain("wf", id)).blocker.code).toBe("in-sync");
  });
});

describe("explain of a resource nothing queues", () => {
  it("should say out of date and not queued when its sync state is gone, and sync-now applies it", async () => {
    const id = await createUser(e, "wf", "forgotten@example.com");
    await waitStatus(e, "wf", "user", id, "synced");
    await explainUntil("wf", id, "in-sync");
    // the bridge's record of what it applied is lost (a restore, a purge): the IdP's user waits for nothing
    await e.state.remove("wf", "user", id);
    const x = await explain("wf", id);
    expect(x.blocker).toEqual({
      code: "not-queued", message: "out of date (never synced) and not queued: nothing will change it by itself",
      action: `scim-bridge sync-now wf ${id} (POST /admin/directories/wf/sync-now {"resource":"${id}"})`,
    });
    expect((await syncNow("wf", id)).status).toBe(200);
    expect((await explain("wf", id)).blocker.code).toBe("in-sync");
  });
});

describe("explain of a directory that holds it", () => {
  it("should say the directory is disabled, and enabling it clears that", async () => {
    const id = await createUser(e, "dis", "disabled@example.com");
    await waitStatus(e, "dis", "user", id, "synced");
    expect((await request(admin()).post("/admin/directories/dis/disable").set(auth)).status).toBe(200);
    const x = await explain("dis", id);
    expect(x.blocker).toEqual({
      code: "disabled", message: "directory dis is disabled: SCIM answers 403 and nothing syncs",
      action: "scim-bridge directory enable dis (POST /admin/directories/dis/enable)",
    });
    expect((await request(admin()).post("/admin/directories/dis/enable").set(auth)).status).toBe(200);
    expect((await explain("dis", id)).blocker.code).toBe("in-sync");
  });

  it("should name the directory that manages the platform user, and the hand-over that clears it", async () => {
    const inWf = await createUser(e, "wf", "owned@example.com");
    const pid = (await waitStatus(e, "wf", "user", inWf, "synced")).platformId!;
    const inWf2 = await createUser(e, "wf2", "owned@example.com");
    await waitStatus(e, "wf2", "user", inWf2, "failed");
    const x = await explain("wf2", inWf2);
    expect(x.blocker).toEqual({
      code: "ownership-conflict", message: expect.stringMatching(/^ownership conflict: platform user .* is managed by directory "wf"/),
      action: "hand the platform resource to this directory (scim-bridge handover …, as the message says), or leave it to the directory that manages it",
    });
    expect(x.blocker.message).toContain("/admin/ownership/handover");
    const res = await request(admin()).post("/admin/ownership/handover").set(auth).send({ space: "u", resource: pid, to: "wf2", from: "wf", by: "test" });
    expect(res.status).toBe(200);
    await waitStatus(e, "wf2", "user", inWf2, "synced");
    expect((await explainUntil("wf2", inWf2, "in-sync")).blocker.message).toBe("in sync");
  });
});
