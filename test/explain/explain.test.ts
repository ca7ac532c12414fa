/**
 * "Why isn't this user on the platform?" and "sync now", through the admin API (supertest) over real Redis,
 * real BullMQ workers and the simulator over HTTP: each blocker the explanation names, and a sync-now that
 * repairs a platform-side change step by step.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig, platformScim } from "../helpers/resync";
import { PLATFORM_KEY, SIM_TOKEN, startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { createUser, waitStatus } from "../helpers/sync-wait";
import type { Explanation } from "../../src/explain/explain";
import type { SyncNowResult } from "../../src/explain/sync-now";
import { DirectoryQueueKeys } from "../../src/store/queue-keys";
import { redisBackend } from "../../src/cli/backends/redis-backend";
import { explainCommand, syncNowCommand } from "../../src/cli/commands/explain";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let e: SyncEnv;
const saved = process.env.TEST_PLATFORM_KEY;

beforeAll(async () => {
  // the admin process reads the platform with the directory's key variable, as the server does
  process.env.TEST_PLATFORM_KEY = PLATFORM_KEY;
  e = await startSyncEnv({ config: adminConfig, directories: [{ id: "one", concurrency: 1 }, { id: "brk", safety: { deprovisionBrake: { max: 1, percent: 100 } } }] });
});
afterAll(async () => {
  await e.close();
  if (saved === undefined) delete process.env.TEST_PLATFORM_KEY; else process.env.TEST_PLATFORM_KEY = saved;
});

async function explain(dir: string, resource: string): Promise<Explanation> {
  const res = await request(adminApp(e)).get(`/admin/directories/${dir}/explain`).query({ resource }).set(auth);
  expect(res.status).toBe(200);
  return res.body as Explanation;
}
const simReads = async () => (await e.simState()).counters.total.reads;

describe("explain", () => {
  it("should say in sync, with the platform's record read once and no difference, for a user and a group", async () => {
    const id = await createUser(e, "wf", "insync@example.com");
    await waitStatus(e, "wf", "user", id, "synced");
    const reads = await simReads();
    const x = await explain("wf", "insync@example.com");
    expect(await simReads()).toBe(reads + 1);
    expect(x).toMatchObject({
      resource: { kind: "user", id, name: "insync@example.com", existsInIdp: true }, sync: { status: "synced" },
      lastApplied: { matchesDesired: true }, platform: { read: true, record: { userName: "insync@example.com", active: true } },
      differences: [], blocker: { code: "in-sync", message: "in sync", action: "none" },
    });
    expect(x.desired).toMatchObject({ userName: "insync@example.com", externalId: `wf:${id}` });
    const g = await e.scim("wf").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Explained", members: [{ value: id }] });
    await waitStatus(e, "wf", "group", g.body.id, "synced");
    expect(await explain("wf", "Explained")).toMatchObject({ resource: { kind: "group", id: g.body.id }, platform: { record: { displayName: "Explained" } }, blocker: { code: "in-sync" } });
  });

  it("should answer 400 without a resource and 404 for one neither side knows", async () => {
    expect((await request(adminApp(e)).get("/admin/directories/wf/explain").set(auth)).status).toBe(400);
    const res = await request(adminApp(e)).get("/admin/directories/wf/explain").query({ resource: "nobody@example.com" }).set(auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toContain("nobody@example.com");
    expect((await request(adminApp(e)).get("/admin/directories/nope/explain").query({ resource: "x" }).set(auth)).status).toBe(404);
  });

  it("should show a platform-side change as a difference, and sync-now should apply the user again step by step", async () => {
    const id = await createUser(e, "wf", "drifted@example.com", { displayName: "Right Name" });
    const st = await waitStatus(e, "wf", "user", id, "synced");
    await platformScim(e, "PATCH", `/Users/${st.platformId}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "displayName", value: "Changed On Platform" }] });
    const x = await explain("wf", id);
    expect(x.differences).toEqual([{ attribute: "displayName", desired: "Right Name", platform: "Changed On Platform" }]);
    expect(x.blocker).toMatchObject({ code: "platform-differs", action: expect.stringContaining("scim-bridge sync-now wf") });

    const res = await request(adminApp(e)).post("/admin/directories/wf/sync-now").set(auth).send({ resource: "drifted@example.com", by: "alice" });
    expect(res.status).toBe(200);
    const run = res.body as SyncNowResult;
    expect(run.outcome).toBe("updated");
    expect(run.steps.map((s) => s.step)).toEqual(["read", "drift", "call", "reconcile"]);
    expect(run.steps[2]).toMatchObject({ method: "PUT", status: 200, ok: true });
    expect(run.sync).toMatchObject({ status: "synced", drift: null });
    expect((await explain("wf", id)).blocker.code).toBe("in-sync");
  });

  it("should name a failure with the platform's message and the action that clears it", async () => {
    // the simulator holds employeeNumber as a string: the bridge's number definition is refused
    const planted = await fetch(`${e.sim.baseUrl}/v1/embed/generate-session`, {
      method: "POST", headers: { Authorization: `Api-Key ${PLATFORM_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ deploymentId: 1, externalId: "planted@example.com", embedTenantName: "em-tenant", creatorMode: true, userAttributeDefinitions: [{ name: "employeeNumber", type: "string" }] }),
    });
    expect(planted.status).toBe(200);
    const u = await e.scim("em").post("/Users", userBody("refused@example.com", { "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { employeeNumber: "7" } }));
    await waitStatus(e, "em", "user", u.body.id, "failed");
    const x = await explain("em", "refused@example.com");
    expect(x.blocker).toMatchObject({ code: "failed", message: expect.stringMatching(/^failed after 1 attempt\(s\): cannot change type/), action: expect.stringContaining("scim-bridge retry-failed em") });
    expect(x.platform).toMatchObject({ read: false, why: expect.stringContaining("no read of one external user") });
    await fetch(`${e.sim.url}/_sim/reset`, { method: "POST", headers: { "x-sim-token": SIM_TOKEN } });
  });

  it("should show a paused directory with the reason and its backlog, and the resume that clears it", async () => {
    await e.state.setMeta("wf", { paused: "paused by an operator for the test", pausedAt: new Date().toISOString() });
    try {
      const id = await createUser(e, "wf", "paused@example.com");
      await waitFor(async () => (await explain("wf", id)).queue.backlog + (await explain("wf", id)).queue.outbox > 0, 10000, "backlog");
      const x = await explain("wf", id);
      expect(x.blocker).toMatchObject({ code: "paused", message: expect.stringMatching(/^directory wf is paused since \S+: paused by an operator for the test; [1-9]\d* change\(s\) wait in its backlog$/), action: expect.stringContaining("scim-bridge resume wf") });
    } finally {
      expect((await request(adminApp(e)).post("/admin/directories/wf/resume").set(auth)).status).toBe(200);
    }
  });

  it("should say how many items a resource is queued behind", async () => {
    // directory "one" runs one reconcile at a time and the platform answers slowly: the third waits behind the second
    e.sim.setFaults({ latency: { fixedMs: 1500, jitterMs: 0 } });
    try {
      const ids: string[] = [];
      for (const n of [1, 2, 3, 4]) ids.push(await createUser(e, "one", `queued${n}@example.com`));
      const x = await waitFor(async () => { const r = await explain("one", ids[3]); return r.blocker.code === "queued" && r.queue.ahead! > 0 ? r : undefined; }, 10000, "queued");
      expect(x.blocker.message).toMatch(/^queued behind ([2-3]) item\(s\): ([1-2]) ahead of it in the backlog, 1 running$/);
      expect(x.blocker.action).toContain("scim-bridge sync-now one");
    } finally {
      e.sim.setFaults({ latency: { fixedMs: 0, jitterMs: 0 } });
    }
  });

  it("sync-now: should refuse a resource whose reconcile runs now (409), and an unknown one (404)", async () => {
    const id = await createUser(e, "wf", "busy@example.com");
    await waitStatus(e, "wf", "user", id, "synced");
    // its own job has freed its slot: the slot taken below is the only one
    await waitIdle(e, "wf");
    const inflight = new DirectoryQueueKeys(e.prefix, "wf").inflight;
    await e.redis.zadd(inflight, Date.now(), `user:${id}`);
    try {
      const res = await request(adminApp(e)).post("/admin/directories/wf/sync-now").set(auth).send({ resource: id });
      expect(res.status).toBe(409);
    } finally {
      await e.redis.zrem(inflight, `user:${id}`);
    }
    expect((await request(adminApp(e)).post("/admin/directories/wf/sync-now").set(auth).send({ resource: "ghost" })).status).toBe(404);
    expect((await request(adminApp(e)).post("/admin/directories/wf/sync-now").set(auth).send({})).status).toBe(400);
  });
});

describe("explain of a conflict", () => {
  it("should name a same-name group conflict and the keep-name that settles it", async () => {
    const group = (displayName: string) => e.scim("wf").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName });
    const first = (await group("Same Name")).body.id as string;
    await waitStatus(e, "wf", "group", first, "synced");
    const second = (await group("Same Name")).body.id as string;
    await waitStatus(e, "wf", "group", second, "failed");
    const x = await explain("wf", second);
    expect(x.blocker).toMatchObject({ code: "name-conflict", message: expect.stringContaining(`(SCIM ids ${first} and ${second})`), action: expect.stringContaining(`scim-bridge keep-name wf ${second}`) });
  });
});

describe("explain of a held deprovision", () => {
  it("should say the deprovision brake holds it, and how to answer the brake", async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await createUser(e, "brk", `braked${n}@example.com`));
    for (const id of ids) await waitStatus(e, "brk", "user", id, "synced");
    const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
    for (const id of ids) expect((await e.scim("brk").patch(`/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] })).status).toBe(200);
    const x = await waitFor(async () => {
      for (const id of ids) { const r = await explain("brk", id); if (r.blocker.code === "held-by-brake") return r; }
      return undefined;
    }, 15000, "held by the brake");
    expect(x.sync.brake).toBe("held");
    expect(x.blocker.action).toContain("scim-bridge brake brk confirm");
  });
});

describe("explain and sync-now on the CLI", () => {
  it("should print the blocker and its action, and each step of a sync-now", async () => {
    const id = await createUser(e, "wf", "cli-explained@example.com");
    await waitStatus(e, "wf", "user", id, "synced");
    await waitIdle(e, "wf");
    const b = await redisBackend(e.config);
    const lines: string[] = [];
    try {
      await explainCommand(b, "wf", "cli-explained@example.com", false, (l) => lines.push(l));
      expect(lines[0]).toBe(`user cli-explained@example.com (id ${id}) of wf`);
      expect(lines[1]).toBe("blocker: in-sync: in sync");
      expect(lines).toContain("action:  none");
      lines.length = 0;
      const run = await syncNowCommand(b, "wf", id, "carol (cli)", false, (l) => lines.push(l));
      expect(run.outcome).toBe("unchanged");
      expect(lines[0]).toMatch(/^sync now of user cli-explained@example\.com .* before: in-sync: in sync$/);
      expect(lines).toContain("  2. reconcile ok   unchanged");
      expect(lines.at(-1)).toBe("done: unchanged; now synced");
    } finally {
      await b.close();
    }
  });
});

describe("explain under the platform's rate limit", () => {
  it("should say until when the platform asked the directory to wait", async () => {
    e.sim.setFaults({ rateLimit: { max: 1, durationMs: 60000, retryAfterSeconds: 30 } });
    try {
      const ids: string[] = [];
      for (const n of [1, 2, 3]) ids.push(await createUser(e, "one", `limited${n}@example.com`));
      const x = await waitFor(async () => {
        for (const id of ids) { const r = await explain("one", id); if (r.blocker.code === "rate-limited") return r; }
        return undefined;
      }, 15000, "rate-limited");
      expect(x.blocker).toMatchObject({ message: expect.stringMatching(/^the platform asked the directory to wait \(429\): nothing is sent before \S+Z$/), action: "none: it resumes by itself then" });
      expect(Date.parse(x.queue.heldUntil!)).toBeGreaterThan(Date.now());
    } finally {
      e.sim.setFaults({ rateLimit: null });
    }
  });
});
