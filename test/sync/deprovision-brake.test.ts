/**
 * The deprovision brake. A directory whose brake allows 3 deprovisions in its window (of 10 users): the IdP
 * deactivates 6 at once and gets its normal answers; 3 reach the platform and 3 are held, shown by the admin
 * API, the status page, the CLI and /metrics, and audited. A worker restart keeps the hold. A re-activation
 * takes its own deprovision out of the hold; a cancel releases the rest (they stay active on the platform
 * until the IdP changes them again); a change that follows is held again; a DELETE past the limit is held
 * too; a confirm applies what is held. An embed directory holds external-user deprovisions the same way.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig } from "../helpers/resync";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { createOpsContext } from "../../src/admin/ops-context";
import { refreshGauges } from "../../src/roles/metrics-handler";
import { createMetrics } from "../../src/observability/metrics";
import { redisBackend } from "../../src/cli/backends/redis-backend";
import { brakeCommand } from "../../src/cli/commands/brake";
import { brakeLimits, type BrakeStatus } from "../../src/sync/brake/brake";
import { BrakeStore } from "../../src/sync/brake/brake-store";
import { brakeSections } from "../../src/admin/brake-section";
import { withFormToken } from "../../src/admin/forgery/form-token";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const patchUser = (e: SyncEnv, id: string, value: Record<string, unknown>) => e.scim("wf").patch(`/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value }] });

async function brake(e: SyncEnv): Promise<BrakeStatus> {
  const res = await request(adminApp(e)).get("/admin/directories/wf/brake").set(auth);
  expect(res.status).toBe(200);
  return res.body as BrakeStatus;
}
const brakeWhere = (e: SyncEnv, pred: (b: BrakeStatus) => boolean, what: string) => waitFor(async () => {
  const b = await brake(e);
  return pred(b) ? b : undefined;
}, 20000, what);

/** Platform users of the directory by userName → active. */
async function platformActive(e: SyncEnv): Promise<Map<string, boolean>> {
  return new Map((await e.simState()).scim.users.filter((u) => u.externalId?.startsWith("wf:")).map((u) => [String(u.userName), u.active !== false]));
}
const activeCount = async (e: SyncEnv) => [...(await platformActive(e)).values()].filter(Boolean).length;

async function heldGauge(e: SyncEnv): Promise<number> {
  const m = createMetrics();
  await refreshGauges(createOpsContext(e.config, e.redis), m);
  return (await m.deprovisionsHeld.get()).values.find((v) => v.labels.directory === "wf" && v.labels.source === "brake")?.value ?? -1;
}

describe("deprovision brake", () => {
  let e: SyncEnv;
  const ids: string[] = [];
  const name = (i: number) => `bk.${i}@example.com`;
  beforeAll(async () => {
    e = await startSyncEnv({ config: adminConfig, wf: { safety: { deprovisionBrake: { max: 3, percent: 100 } } } });
    for (let i = 0; i < 10; i++) {
      const res = await e.scim("wf").post("/Users", userBody(name(i)));
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    await waitFor(async () => (await activeCount(e)) === 10, 20000, "10 users on the platform");
    await waitIdle(e, "wf");
  }, 40000);
  afterAll(async () => e.close());

  it("should answer the IdP as usual, apply 3 deactivations and hold the rest, shown everywhere and audited", async () => {
    for (const id of ids.slice(0, 6)) {
      const res = await patchUser(e, id, { active: false });
      expect(res.status).toBe(200);
      expect(res.body.active).toBe(false);
    }
    const b = await brakeWhere(e, (x) => x.held === 3, "3 held");
    await waitIdle(e, "wf");
    expect(b).toMatchObject({ state: "holding", held: 3, counted: 3, limits: { windowSeconds: 3600, max: 3, percent: 100 } });
    expect(b.items.map((it) => it.action)).toEqual(["deactivate", "deactivate", "deactivate"]);
    expect(await activeCount(e)).toBe(7);
    const active = await platformActive(e);
    for (const it of b.items) expect(active.get(it.name!)).toBe(true);
    expect(b.audit[0]).toMatchObject({ action: "hold", by: "brake", reason: expect.stringMatching(/more than 3 deprovisions/) });
    // the IdP reads back what it wrote
    expect((await e.scim("wf").get(`/Users/${ids[0]}`)).body.active).toBe(false);

    const page = await request(adminApp(e)).get("/admin/status/wf").set(auth).set("Accept", "text/html");
    expect(page.text).toContain("3 deprovision(s) held by the brake");
    expect(page.text).toContain(b.items[0].name!);
    expect(page.text).toContain('action="/admin/directories/wf/brake"');
    // a signed-in person's forms carry the session's form token
    const forms = withFormToken("t".repeat(32), () => brakeSections([b], new Date())).match(/<form [^>]*>.*?<\/form>/gs) ?? [];
    expect(forms).toHaveLength(2);
    for (const f of forms) expect(f).toContain(`name="_formToken" value="${"t".repeat(32)}"`);
    expect(await heldGauge(e)).toBe(3);
    const cli = await redisBackend(e.config);
    const lines: string[] = [];
    try {
      expect(await brakeCommand(cli, "wf", undefined, "tester (cli)", (l) => lines.push(l))).toBe(3);
    } finally {
      await cli.close();
    }
    expect(lines.join("\n")).toMatch(/HOLDS 3 deprovision/);
    expect(lines.join("\n")).toContain(b.items[1].name!);
  });

  it("should keep the hold across a worker restart", async () => {
    await e.runtime!.close();
    await e.startRuntime();
    // whatever the new worker reconciles again, the held ones stay held
    for (const id of ids.slice(0, 6)) await e.queues.enqueue("wf", "user", id);
    await waitIdle(e, "wf");
    expect((await brake(e)).held).toBe(3);
    expect(await activeCount(e)).toBe(7);
  });

  it("should take a re-activated user out of the hold", async () => {
    const b = await brake(e);
    const back = b.items[0];
    expect((await patchUser(e, back.id, { active: true })).status).toBe(200);
    const after = await brakeWhere(e, (x) => x.held === 2, "2 held");
    expect(after.items.map((it) => it.id)).not.toContain(back.id);
    await waitIdle(e, "wf");
    expect((await platformActive(e)).get(back.name!)).toBe(true);
  });

  it("should release the held on cancel, and hold a later change of them again", async () => {
    const b = await brake(e);
    const cli = await redisBackend(e.config);
    const lines: string[] = [];
    try {
      expect(await brakeCommand(cli, "wf", "cancel", "tester (cli)", (l) => lines.push(l))).toBe(0);
      expect(await brakeCommand(cli, "wf", "cancel", "tester (cli)", (l) => lines.push(l))).toBe(1);
    } finally {
      await cli.close();
    }
    expect(lines[0]).toMatch(/cancelled: 2 held deprovision/);
    const released = await brake(e);
    expect(released).toMatchObject({ state: "clear", held: 0 });
    expect(released.audit[0]).toMatchObject({ action: "cancel", by: "tester (cli)", count: 2 });
    // reconciled again (a retry, a sweep): released ones stay as they are
    for (const it of b.items) await e.queues.enqueue("wf", "user", it.id);
    await waitIdle(e, "wf");
    const active = await platformActive(e);
    for (const it of b.items) expect(active.get(it.name!)).toBe(true);
    expect((await brake(e)).held).toBe(0);
    // the IdP changes one of them again: a deprovision again, and the window is still full
    expect((await patchUser(e, b.items[0].id, { displayName: "Changed Again" })).status).toBe(200);
    const again = await brakeWhere(e, (x) => x.held === 1, "the changed one held again");
    expect(again.items[0].id).toBe(b.items[0].id);
  });

  it("should hold a DELETE past the limit, and apply every held deprovision on confirm", async () => {
    expect((await e.scim("wf").delete(`/Users/${ids[9]}`)).status).toBe(204);
    const b = await brakeWhere(e, (x) => x.held === 2, "the delete held too");
    await waitIdle(e, "wf");
    expect((await platformActive(e)).get(name(9))).toBe(true);
    const res = await request(adminApp(e)).post("/admin/directories/wf/brake").set(auth).send({ action: "confirm", by: "alice" });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ confirmed: 2 });
    await waitFor(async () => (await platformActive(e)).get(name(9)) === false, 20000, "the deleted user deactivated");
    await waitIdle(e, "wf");
    const active = await platformActive(e);
    for (const it of b.items) expect(active.get(it.name!.includes("@") ? it.name! : name(9))).toBe(false);
    const after = await brake(e);
    expect(after).toMatchObject({ state: "clear", held: 0 });
    expect(after.audit[0]).toMatchObject({ action: "confirm", count: 2, by: expect.stringMatching(/^alice \(admin API/) });
    expect((await request(adminApp(e)).post("/admin/directories/wf/brake").set(auth).send({ action: "confirm" })).status).toBe(409);
    expect((await request(adminApp(e)).post("/admin/directories/wf/brake").set(auth).send({ action: "nope" })).status).toBe(400);
    expect(await heldGauge(e)).toBe(0);
  });
});

describe("deprovision brake limits", () => {
  let e: SyncEnv;
  beforeAll(async () => { e = await startSyncEnv({ runtime: false }); });
  afterAll(async () => e.close());

  it("should default to the resync safeguard's limits", () => {
    expect(brakeLimits(e.config.directories[0])).toEqual({ windowMs: 3600_000, max: 500, percent: 20, minimum: 10 });
  });

  /** Admits `n` deprovisions of a directory managing `managed` resources; resolves with how many passed. */
  async function burst(dir: string, managed: number, n: number): Promise<number> {
    const store = new BrakeStore(e.redis, e.prefix);
    const synced = store.keys(dir).synced;
    for (let i = 0; i < managed; i += 500) await e.redis.sadd(synced, ...Array.from({ length: Math.min(500, managed - i) }, (_, j) => `u:m${i + j}`));
    let passed = 0;
    for (let i = 0; i < n; i++) {
      const item = { kind: "user" as const, id: `d${i}`, action: "deactivate" as const, version: "v", at: "" };
      const v = await store.admit(dir, item, { windowMs: 3600_000, max: 500, percent: 20, minimum: 10 });
      if (v === "pass") passed++;
      // passed ones leave the synced set, as a reconcile that deactivates moves them
      if (v === "pass" && i < managed) await e.redis.srem(synced, `u:m${i}`);
    }
    return passed;
  }

  it("should hold past 20% of what the directory manages when that is at least 10, else past max", async () => {
    expect(await burst("pa", 100, 40)).toBe(20);
    // 20% of 30 is 6, under 10: the count limit (500) applies
    expect(await burst("pb", 30, 30)).toBe(30);
    // a retried deprovision is counted once
    const store = new BrakeStore(e.redis, e.prefix);
    const item = { kind: "user" as const, id: "again", action: "deactivate" as const, version: "v", at: "" };
    const limits = { windowMs: 3600_000, max: 1, percent: 100, minimum: 10 };
    expect(await store.admit("pc", item, limits)).toBe("pass");
    expect(await store.admit("pc", item, limits)).toBe("pass");
    expect(await store.admit("pc", { ...item, id: "next" }, limits)).toBe("engaged");
    expect(await store.admit("pc", { ...item, id: "after" }, limits)).toBe("held");
  });
});

describe("deprovision brake, embed directory", () => {
  let e: SyncEnv;
  beforeAll(async () => { e = await startSyncEnv({ em: { safety: { deprovisionBrake: { max: 1, percent: 100 } } } }); });
  afterAll(async () => e.close());

  it("should hold external-user deprovisions past the limit, and a re-activation cancels its own", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const u = await e.scim("em").post("/Users", userBody(`bke.${i}@example.com`));
      expect(u.status).toBe(201);
      ids.push(u.body.id);
    }
    const g = await e.scim("em").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Brake Group", members: ids.map((value) => ({ value })) });
    expect(g.status).toBe(201);
    const groupsOf = async (i: number) => (await e.simState()).tenants["em-tenant"]?.externalUsers[`bke.${i}@example.com`]?.groups ?? [];
    await waitFor(async () => (await Promise.all([0, 1, 2].map(groupsOf))).every((x) => x.length === 1), 20000, "3 external users in their group");
    await waitIdle(e, "em");
    for (const id of ids) expect((await patchEm(e, id, { active: false })).status).toBe(200);
    await waitIdle(e, "em");
    const states = await e.state.getMany("em", "user", ids);
    expect(states.map((s) => s.status).sort()).toEqual(["deprovisioned", "synced", "synced"]);
    const heldIds = ids.filter((_, i) => states[i].status === "synced");
    for (const i of [0, 1, 2]) expect((await groupsOf(i)).length).toBe(states[i].status === "synced" ? 1 : 0);
    const store = new BrakeStore(e.redis, e.prefix);
    expect((await store.list("em")).map((it) => it.id).sort()).toEqual([...heldIds].sort());
    // one comes back: its held deprovision goes, nothing is sent for it
    expect((await patchEm(e, heldIds[0], { active: true })).status).toBe(200);
    await waitIdle(e, "em");
    expect((await store.list("em")).map((it) => it.id)).toEqual([heldIds[1]]);
    expect((await e.state.get("em", "user", heldIds[0])).status).toBe("synced");
  });
});

function patchEm(e: SyncEnv, id: string, value: Record<string, unknown>) {
  return e.scim("em").patch(`/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value }] });
}
