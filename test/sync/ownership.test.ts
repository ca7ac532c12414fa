/**
 * Directories sharing one platform account do not fight (issue 9 item 8): two workforce directories on
 * one simulator account never adopt, change or deprovision each other's users and groups — the later
 * directory's item fails with a conflict naming the owner — until an operator hands the resource over
 * (admin API); the same for two embed directories sharing one embed tenant.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig, resyncThroughAdmin } from "../helpers/resync";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { redisBackend } from "../../src/cli/backends/redis-backend";
import { Ownership } from "../../src/sync/ownership/ownership-store";

const GROUP_SCHEMA = ["urn:ietf:params:scim:schemas:core:2.0:Group"];
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({
    config: adminConfig,
    directories: [{ id: "wf2" }, { id: "em2", target: "embed", embed: { tenantName: "em-tenant" } }],
  });
});
afterAll(async () => e.close());

async function user(dir: string, userName: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await e.scim(dir).post("/Users", userBody(userName, extra));
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const status = (dir: string, kind: "user" | "group", id: string) => e.state.get(dir, kind, id);
const settled = (dir: string, kind: "user" | "group", id: string, want: "synced" | "failed", what: string) =>
  waitFor(async () => { const st = await status(dir, kind, id); return st.status === want ? st : undefined; }, 15000, what);
const platformUser = async (userName: string) => (await e.simState()).scim.users.filter((u) => u.userName === userName);

describe("two workforce directories on one platform account", () => {
  let pid = "";
  let inWf = "";
  let inWf2 = "";

  it("should not let the second directory adopt the first one's user: a conflict naming the owner", async () => {
    inWf = await user("wf", "own.alice@example.com", { displayName: "Alice of wf" });
    pid = (await settled("wf", "user", inWf, "synced", "wf's alice synced")).platformId!;
    inWf2 = await user("wf2", "own.alice@example.com", { displayName: "Alice of wf2" });
    const st = await settled("wf2", "user", inWf2, "failed", "wf2's alice refused");
    expect(st.lastError).toMatch(/^ownership conflict: platform user .* is managed by directory "wf"/);
    expect(st.lastError).toContain("/admin/ownership/handover");
    await waitIdle(e, "wf");
    const onPlatform = await platformUser("own.alice@example.com");
    expect(onPlatform).toHaveLength(1);
    expect(onPlatform[0]).toMatchObject({ id: pid, externalId: `wf:${inWf}`, displayName: "Alice of wf", active: true });
    const failed = await request(adminApp(e)).get("/admin/directories/wf2/failed").set(auth);
    expect(failed.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: inWf2, lastError: expect.stringContaining('directory "wf"') })]));
  });

  it("should not let the second directory adopt the first one's group", async () => {
    const g1 = await e.scim("wf").post("/Groups", { schemas: GROUP_SCHEMA, displayName: "Own Team", members: [{ value: inWf }] });
    await settled("wf", "group", g1.body.id, "synced", "wf's group synced");
    const g2 = await e.scim("wf2").post("/Groups", { schemas: GROUP_SCHEMA, displayName: "Own Team", members: [] });
    const st = await settled("wf2", "group", g2.body.id, "failed", "wf2's group refused");
    expect(st.lastError).toMatch(/platform group .* is managed by directory "wf"/);
    const groups = (await e.simState()).scim.groups.filter((g) => g.displayName === "Own Team");
    expect(groups).toHaveLength(1);
    expect(groups[0].members.map((m) => m.value)).toEqual([pid]);
  });

  it("should refuse a hand-over with a bad space or the wrong current owner, and change nothing", async () => {
    const bad = await request(adminApp(e)).post("/admin/ownership/handover").set(auth).send({ space: "eu", resource: pid, to: "wf2" });
    expect(bad.status).toBe(400);
    const wrong = await request(adminApp(e)).post("/admin/ownership/handover").set(auth).send({ space: "u", resource: pid, to: "wf2", from: "wf2" });
    expect(wrong.status).toBe(409);
    expect(wrong.body.error).toContain('directory "wf"');
    expect((await status("wf2", "user", inWf2)).status).toBe("failed");
  });

  it("should answer 404 and write nothing for an id no directory manages, or an unknown directory (admin API and CLI backend)", async () => {
    const owners = new Ownership(e.redis, e.prefix);
    const wf = e.config.directories.find((d) => d.id === "wf")!;
    const hash = owners.key(wf.platform.baseUrl, "u");
    const before = await e.redis.hgetall(hash);
    for (const body of [{ space: "u", resource: "no-such-platform-id", to: "wf2" }, { space: "u", resource: "no-such-platform-id", to: "wf2", from: "wf" },
      { space: "u", resource: pid, to: "no-such-dir" }, { space: "u", resource: pid, to: "wf2", from: "no-such-dir" }]) {
      const res = await request(adminApp(e)).post("/admin/ownership/handover").set(auth).send(body);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/no directory manages no-such-platform-id|unknown directory "no-such-dir"/);
    }
    const b = await redisBackend(e.config);
    try {
      expect(await b.handOver({ space: "u", resource: "no-such-platform-id", to: "wf2" }, "dave (cli)")).toMatchObject({ ok: false, status: 404 });
    } finally {
      await b.close();
    }
    expect(await e.redis.hgetall(hash)).toEqual(before);
    expect((await status("wf2", "user", inWf2)).status).toBe("failed");
  });

  it("should let the second directory take the user once it is handed over, and then keep the first one off it", async () => {
    const res = await request(adminApp(e)).post("/admin/ownership/handover").set(auth).send({ space: "u", resource: pid, to: "wf2", from: "wf", by: "carol" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ space: "u", resource: pid, from: "wf", to: "wf2", requeued: 1 });
    const st = await settled("wf2", "user", inWf2, "synced", "wf2's alice synced after the hand-over");
    expect(st.platformId).toBe(pid);
    expect((await platformUser("own.alice@example.com"))[0]).toMatchObject({ id: pid, externalId: `wf2:${inWf2}`, displayName: "Alice of wf2" });

    // the first directory's change and its resync leave it alone and say who manages it
    expect((await e.scim("wf").patch(`/Users/${inWf}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Changed in wf" }] })).status).toBe(200);
    const refused = await settled("wf", "user", inWf, "failed", "wf's change refused");
    expect(refused.lastError).toContain('managed by directory "wf2"');
    await resyncThroughAdmin(e, "wf");
    await waitIdle(e, "wf");
    expect((await platformUser("own.alice@example.com"))[0]).toMatchObject({ externalId: `wf2:${inWf2}`, displayName: "Alice of wf2", active: true });

    // nor does its IdP delete deprovision it
    expect((await e.scim("wf").delete(`/Users/${inWf}`)).status).toBe(204);
    await waitIdle(e, "wf");
    expect((await platformUser("own.alice@example.com"))[0]).toMatchObject({ id: pid, active: true });
    expect((await status("wf", "user", inWf)).lastError).toContain('managed by directory "wf2"');
  });

  it("should hand it back through the CLI's backend; the first directory then applies what waited (its IdP delete)", async () => {
    const b = await redisBackend(e.config);
    try {
      const r = await b.handOver({ space: "u", resource: pid, to: "wf", from: "wf2" }, "dave (cli)");
      expect(r).toMatchObject({ ok: true, from: "wf2", to: "wf", requeued: 1 });
    } finally {
      await b.close();
    }
    await waitFor(async () => (await platformUser("own.alice@example.com"))[0]?.active === false, 15000, "alice deactivated by wf");
    expect((await status("wf", "user", inWf)).status).toBe("deprovisioned");
  });
});

describe("two embed directories sharing one embed tenant", () => {
  it("should not let the second directory take over the first one's external user", async () => {
    const a = await user("em", "own.shared");
    await settled("em", "user", a, "synced", "em's user synced");
    const b = await user("em2", "own.shared", { title: "from em2" });
    const st = await settled("em2", "user", b, "failed", "em2's user refused");
    expect(st.lastError).toMatch(/^ownership conflict: external user own\.shared is managed by directory "em"/);
  });

  it("should not let the second directory join, change or delete the first one's embed-tenant group", async () => {
    const m1 = await user("em", "own.member1");
    const m2 = await user("em2", "own.member2");
    const g1 = await e.scim("em").post("/Groups", { schemas: GROUP_SCHEMA, displayName: "Shared Team", members: [{ value: m1 }] });
    await waitFor(async () => (await e.simState()).tenants["em-tenant"]?.externalUsers["own.member1"]?.groups.includes("Shared Team"), 15000, "em's member in the group");
    const g2 = await e.scim("em2").post("/Groups", { schemas: GROUP_SCHEMA, displayName: "Shared Team", members: [{ value: m2 }] });
    const st = await settled("em2", "group", g2.body.id, "failed", "em2's group refused");
    expect(st.lastError).toMatch(/embed-tenant group Shared Team is managed by directory "em"/);
    await waitIdle(e, "em");
    expect((await e.simState()).tenants["em-tenant"].externalUsers["own.member2"]?.groups ?? []).not.toContain("Shared Team");
    // em2 deleting its group leaves em's tenant group and member alone
    expect((await e.scim("em2").delete(`/Groups/${g2.body.id}`)).status).toBe(204);
    await waitIdle(e, "em");
    const t = (await e.simState()).tenants["em-tenant"];
    expect(t.groups.map((g) => g.name)).toContain("Shared Team");
    expect(t.externalUsers["own.member1"].groups).toContain("Shared Team");
    expect(g1.status).toBe(201);
  });
});
