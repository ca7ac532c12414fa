/**
 * The deprovisioning safeguard of a resync (issue 9 item 2). 32 users synced to the simulator, then the
 * directory's store emptied (as after a restore into an empty or re-prefixed Redis): a dry run reports
 * the plan and writes nothing; a resync stops in `awaiting-confirmation` listing the 32 and deactivates
 * nothing; a cancel deprovisions nothing; a confirm (audited: who, when, how many) deactivates them. A
 * directory over its count limit holds; one within it goes on.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig, dropUserBehindBridge, getResync, postResync, writes } from "../helpers/resync";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { scanKeys, unlinkKeys } from "../helpers/redis";
import type { ResyncProgress } from "../../src/sync/resync/resync";
import { redisBackend } from "../../src/cli/backends/redis-backend";
import { answerCommand, dryRunCommand, resyncCommand } from "../../src/cli/commands/ops";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** Waits until the directory's latest resync (a new one, not `beforeId`) satisfies `pred`. */
function resyncWhere(e: SyncEnv, dir: string, beforeId: string | undefined, pred: (p: ResyncProgress) => boolean, what: string): Promise<ResyncProgress> {
  return waitFor(async () => {
    const p = await getResync(e, dir);
    return p.id && p.id !== beforeId && pred(p) ? p : undefined;
  }, 20000, what) as Promise<ResyncProgress>;
}

/** Deletes every key of the directory (desired state, sync state, resync) — an empty store. */
async function emptyStore(e: SyncEnv, dir: string): Promise<void> {
  // every master of a cluster (KEYS sent to a cluster goes to one of them)
  await unlinkKeys(e.redis, await scanKeys(e.redis, `${e.prefix}:{${dir}}:*`));
}

const activeOnPlatform = async (e: SyncEnv, dir: string) => (await e.simState()).scim.users.filter((u) => u.externalId?.startsWith(`${dir}:`) && u.active !== false).length;

describe("resync safeguard: empty store", () => {
  let e: SyncEnv;
  beforeAll(async () => {
    e = await startSyncEnv({ config: adminConfig });
    for (let i = 0; i < 32; i++) expect((await e.scim("wf").post("/Users", userBody(`sg.${i}@example.com`))).status).toBe(201);
    await waitFor(async () => (await activeOnPlatform(e, "wf")) === 32, 20000, "32 users on the platform");
    await waitIdle(e, "wf");
    await emptyStore(e, "wf");
  });
  afterAll(async () => e.close());

  it("should report the full plan on a dry run and write nothing", async () => {
    const writesBefore = await writes(e);
    const res = await request(adminApp(e)).post("/admin/directories/wf/resync?dryRun=true").set(auth);
    expect(res.status).toBe(202);
    const plan = await waitFor(async () => {
      const r = await request(adminApp(e)).get("/admin/directories/wf/resync/plan").set(auth);
      return r.status === 200 && r.body.id === res.body.plan ? r.body : undefined;
    }, 20000, "the dry run's plan");
    expect(plan.counts).toMatchObject({ create: 0, update: 0, deprovision: 32, storeUsers: 0 });
    expect(plan.wouldHold).toMatch(/store holds no user/);
    expect(plan.deprovision).toHaveLength(32);
    expect(plan.deprovision[0]).toMatchObject({ kind: "user", name: expect.stringMatching(/^sg\.\d+@example.com$/) });
    expect(await writes(e)).toBe(writesBefore);
    // nothing but the plan itself was written for the directory (the rate window and the status page's
    // per-minute call counter count the listing calls)
    expect((await scanKeys(e.redis, `${e.prefix}:{wf}:*`)).filter((k) => !k.endsWith(":resync:plan") && !k.endsWith(":outbox") && !k.endsWith(":s:rate") && !k.endsWith(":c:calls"))).toEqual([]);
    expect((await getResync(e, "wf")).status).toBeUndefined();
  });

  it("should stop in awaiting-confirmation listing the 32, deactivate nothing, and refuse another resync", async () => {
    const writesBefore = await writes(e);
    expect((await postResync(e, "wf")).status).toBe(202);
    const p = await resyncWhere(e, "wf", undefined, (x) => x.status === "awaiting-confirmation" && x.phase === "awaiting-confirmation", "awaiting confirmation");
    expect(p).toMatchObject({ held: 32, deactivated: 0, holdReason: expect.stringMatching(/no user/) });
    const listed = (p as ResyncProgress & { deprovisions: Array<{ kind: string; name: string }> }).deprovisions;
    expect(listed).toHaveLength(32);
    expect(listed.map((d) => d.name).sort()).toEqual(Array.from({ length: 32 }, (_, i) => `sg.${i}@example.com`).sort());
    expect(await activeOnPlatform(e, "wf")).toBe(32);
    expect(await writes(e)).toBe(writesBefore);
    const again = await postResync(e, "wf");
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/awaits confirmation/);
    // the status page shows it, with what it would deprovision and the buttons to answer
    const page = await request(adminApp(e)).get("/admin/status/wf").set(auth).set("Accept", "text/html");
    expect(page.status).toBe(200);
    expect(page.text).toContain("resync awaits confirmation");
    expect(page.text).toContain("sg.0@example.com");
    expect(page.text).toContain("/admin/directories/wf/resync/confirm");
    expect(page.text).toContain("/admin/directories/wf/resync/cancel");
  });

  it("should deprovision nothing on cancel, and audit it", async () => {
    const held = await getResync(e, "wf");
    const res = await request(adminApp(e)).post("/admin/directories/wf/resync/cancel").set(auth).send({ by: "bob" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ cancelled: 32, resync: held.id });
    const p = await getResync(e, "wf");
    expect(p).toMatchObject({ status: "done", phase: "cancelled", cancelledCount: 32, cancelledBy: expect.stringMatching(/^bob \(admin API from /) });
    expect((await request(adminApp(e)).post("/admin/directories/wf/resync/cancel").set(auth)).status).toBe(409);
    await waitIdle(e, "wf");
    expect(await activeOnPlatform(e, "wf")).toBe(32);
    const audit = await request(adminApp(e)).get("/admin/directories/wf/resync/audit").set(auth);
    expect(audit.body[0]).toMatchObject({ action: "cancel", resync: held.id, count: 32, by: expect.stringMatching(/^bob/), at: expect.any(String) });
  });

  it("should deactivate the 32 once confirmed, with who, when and how many recorded", async () => {
    const before = await getResync(e, "wf");
    expect((await postResync(e, "wf")).status).toBe(202);
    const held = await resyncWhere(e, "wf", before.id, (x) => x.phase === "awaiting-confirmation", "awaiting confirmation");
    expect(await activeOnPlatform(e, "wf")).toBe(32);
    const res = await request(adminApp(e)).post("/admin/directories/wf/resync/confirm").set(auth).send({ by: "alice", resync: held.id });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ confirmed: 32, resync: held.id });
    const p = await resyncWhere(e, "wf", before.id, (x) => x.status === "done", "the confirmed resync done");
    expect(p).toMatchObject({ id: held.id, phase: "done", deactivated: 32, failed: 0, confirmedCount: 32, confirmedBy: expect.stringMatching(/^alice \(admin API/), confirmedAt: expect.any(String) });
    expect(await activeOnPlatform(e, "wf")).toBe(0);
    const audit = await request(adminApp(e)).get("/admin/directories/wf/resync/audit").set(auth);
    expect(audit.body.map((a: { action: string }) => a.action)).toEqual(["confirm", "hold", "cancel", "hold"]);
  });
});

describe("resync safeguard: count limit", () => {
  let e: SyncEnv;
  const ids: string[] = [];
  beforeAll(async () => {
    e = await startSyncEnv({ config: adminConfig, wf: { safety: { maxDeprovisionPerResync: { count: 2, percent: 100 } } } });
    for (let i = 0; i < 6; i++) {
      const res = await e.scim("wf").post("/Users", userBody(`cl.${i}@example.com`));
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    await waitFor(async () => (await activeOnPlatform(e, "wf")) === 6, 20000, "6 users on the platform");
    await waitIdle(e, "wf");
  });
  afterAll(async () => e.close());

  it("should deprovision within the limit without asking", async () => {
    for (const id of ids.slice(0, 2)) await dropUserBehindBridge(e, "wf", id, true);
    const before = await getResync(e, "wf");
    expect((await postResync(e, "wf")).status).toBe(202);
    const p = await resyncWhere(e, "wf", before.id, (x) => x.status === "done", "resync done");
    expect(p).toMatchObject({ deactivated: 2, held: 0 });
    expect(await activeOnPlatform(e, "wf")).toBe(4);
  });

  it("should hold past the limit; the CLI shows the plan, the held list, and cancels", async () => {
    for (const id of ids.slice(2, 5)) await dropUserBehindBridge(e, "wf", id, true);
    const b = await redisBackend(e.config);
    const lines: string[] = [];
    try {
      const plan = await dryRunCommand(b, "wf", "tester (cli)", (l) => lines.push(l), 50);
      expect(plan.counts).toMatchObject({ deprovision: 3 });
      expect(lines.join("\n")).toMatch(/deprovision 3 \(of 4 managed; 1 users in the store\)/);
      expect(lines.join("\n")).toMatch(/cl\.2@example\.com/);
      const p = await resyncCommand(b, "wf", (l) => lines.push(l), { tty: false, pollMs: 50 });
      expect(p).toMatchObject({ status: "awaiting-confirmation", held: 3, holdReason: expect.stringMatching(/count \(2\)/) });
      expect(lines.join("\n")).toMatch(/AWAITS CONFIRMATION/);
      expect(await activeOnPlatform(e, "wf")).toBe(4);
      expect(await answerCommand(b, "wf", "cancel", "tester (cli)", (l) => lines.push(l))).toBe(true);
      expect(await answerCommand(b, "wf", "cancel", "tester (cli)", (l) => lines.push(l))).toBe(false);
    } finally {
      await b.close();
    }
    expect(await getResync(e, "wf")).toMatchObject({ status: "done", phase: "cancelled", cancelledBy: "tester (cli)", cancelledCount: 3 });
    expect(await activeOnPlatform(e, "wf")).toBe(4);
  });
});
