/**
 * The platform side of duplicate names (issue 10 item 2): two IdP groups with one platform name (SCIM
 * allows it, RFC 7643 §4.2) are never merged — the later one fails with a visible error naming both SCIM
 * ids and the name (admin API, status page) and syncs by itself once the conflict is gone (either renamed
 * or deleted). The same for two groups mapped to one embed-tenant group, and two users mapped to one
 * embed externalId.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig } from "../helpers/resync";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";

const GROUP_SCHEMA = ["urn:ietf:params:scim:schemas:core:2.0:Group"];
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const TENANT = "em-tenant";

let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({
    config: adminConfig,
    // embed users keyed by displayName (lower-cased), so two users of different userNames can map to one externalId
    em: { embed: { tenantName: TENANT, externalIdAttribute: "displayName", groupNameMapping: { "Team A": "Team", "Team B": "Team" } } },
  });
});
afterAll(async () => e.close());

async function user(dir: string, userName: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await e.scim(dir).post("/Users", userBody(userName, extra));
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function group(dir: string, displayName: string, members: string[]): Promise<string> {
  const res = await e.scim(dir).post("/Groups", { schemas: GROUP_SCHEMA, displayName, members: members.map((value) => ({ value })) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** A second workforce group named `name` (SCIM allows it: RFC 7643 §4.2, uniqueness "none"). */
async function duplicateGroup(name: string, members: string[]): Promise<string> {
  return group("wf", name, members);
}

const status = async (dir: string, kind: "user" | "group", id: string) => e.state.get(dir, kind, id);
const failedWith = (dir: string, kind: "user" | "group", id: string, what: string) =>
  waitFor(async () => { const st = await status(dir, kind, id); return st.status === "failed" ? st : undefined; }, 15000, what);
const synced = (dir: string, kind: "user" | "group", id: string, what: string) =>
  waitFor(async () => (await status(dir, kind, id)).status === "synced", 15000, what);
const platformGroups = async (name: string) => (await e.simState()).scim.groups.filter((g) => g.displayName === name);

describe("workforce: two IdP groups with one platform name", () => {
  it("should fail the later group naming both ids and the name, merge nothing, and show it on the admin API and status page", async () => {
    const u1 = await user("wf", "nc.one@example.com");
    const u2 = await user("wf", "nc.two@example.com");
    const a = await group("wf", "NC Eng", [u1]);
    await synced("wf", "group", a, "group A synced");
    const b = await duplicateGroup("NC Eng", [u2]);
    const st = await failedWith("wf", "group", b, "group B failed");
    expect(st.lastError).toContain(`SCIM ids ${a} and ${b}`);
    expect(st.lastError).toContain('"NC Eng"');
    await waitIdle(e, "wf");
    const onPlatform = await platformGroups("NC Eng");
    expect(onPlatform).toHaveLength(1);
    const u1pid = (await status("wf", "user", u1)).platformId;
    expect(onPlatform[0].members.map((m) => m.value)).toEqual([u1pid]);

    const failed = await request(adminApp(e)).get("/admin/directories/wf/failed").set("Authorization", `Bearer ${ADMIN_TOKEN}`);
    expect(failed.body).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "group", id: b, name: "NC Eng", lastError: expect.stringContaining(a) })]));
    const page = await request(adminApp(e)).get("/admin/status/wf").set("Authorization", `Bearer ${ADMIN_TOKEN}`).set("Accept", "text/html");
    expect(page.text).toContain(`SCIM ids ${a} and ${b}`);
  });

  it("should sync the later group by itself once it is renamed", async () => {
    const u3 = await user("wf", "nc.three@example.com");
    const a = await group("wf", "NC Ops", []);
    await synced("wf", "group", a, "group A synced");
    const b = await duplicateGroup("NC Ops", [u3]);
    await failedWith("wf", "group", b, "group B failed");
    expect((await e.scim("wf").patch(`/Groups/${b}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "NC Ops 2" }] })).status).toBeLessThan(300);
    await synced("wf", "group", b, "group B synced after its rename");
    expect(await platformGroups("NC Ops")).toHaveLength(1);
    expect((await platformGroups("NC Ops 2"))[0].members).toHaveLength(1);
  });

  it("should sync the later group by itself once the holder is deleted", async () => {
    const u4 = await user("wf", "nc.four@example.com");
    const a = await group("wf", "NC Sales", []);
    await synced("wf", "group", a, "group A synced");
    const b = await duplicateGroup("NC Sales", [u4]);
    await failedWith("wf", "group", b, "group B failed");
    expect((await e.scim("wf").delete(`/Groups/${a}`)).status).toBe(204);
    await synced("wf", "group", b, "group B synced after A's delete");
    await waitIdle(e, "wf");
    const onPlatform = await platformGroups("NC Sales");
    expect(onPlatform).toHaveLength(1);
    expect(onPlatform[0].members.map((m) => m.value)).toEqual([(await status("wf", "user", u4)).platformId]);
  });

  it("should sync the later group by itself once the holder is renamed", async () => {
    const a = await group("wf", "NC Legal", []);
    await synced("wf", "group", a, "group A synced");
    const b = await duplicateGroup("NC Legal", []);
    await failedWith("wf", "group", b, "group B failed");
    expect((await e.scim("wf").patch(`/Groups/${a}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "NC Legal Old" }] })).status).toBeLessThan(300);
    await synced("wf", "group", b, "group B synced after A's rename");
    await waitIdle(e, "wf");
    expect(await platformGroups("NC Legal")).toHaveLength(1);
    expect(await platformGroups("NC Legal Old")).toHaveLength(1);
    // B made a platform group of its own: it did not adopt A's while A's still carried the name
    expect((await status("wf", "group", b)).platformId).not.toBe((await status("wf", "group", a)).platformId);
    expect((await platformGroups("NC Legal"))[0].id).toBe((await status("wf", "group", b)).platformId);
  });
});

describe("embed: two IdP users with one externalId, two IdP groups with one tenant group", () => {
  it("should fail the later user naming both, leave the first one's external user alone, and sync it once the first is deleted", async () => {
    const a = await user("em", "nc.x1", { displayName: "Same Person" });
    await synced("em", "user", a, "user A synced");
    const b = await user("em", "nc.x2", { displayName: "same person", title: "B's title" });
    const st = await failedWith("em", "user", b, "user B failed");
    expect(st.lastError).toContain(`SCIM ids ${a} and ${b}`);
    expect(st.lastError).toContain('externalId "same person"');
    expect((await e.scim("em").delete(`/Users/${a}`)).status).toBe(204);
    await synced("em", "user", b, "user B synced after A's delete");
    expect(await status("em", "user", b)).toMatchObject({ externalId: "same person" });
  });

  it("should not merge two IdP groups mapped to one tenant group: the later fails, its members do not join", async () => {
    const u1 = await user("em", "nc.g1", { displayName: "Group Member One" });
    const u2 = await user("em", "nc.g2", { displayName: "Group Member Two" });
    const a = await group("em", "Team A", [u1]);
    await waitFor(async () => (await e.simState()).tenants[TENANT]?.externalUsers["group member one"]?.groups.includes("Team"), 15000, "u1 in Team");
    const b = await group("em", "Team B", [u2]);
    const st = await failedWith("em", "group", b, "group B failed");
    expect(st.lastError).toContain(`SCIM ids ${a} and ${b}`);
    await waitIdle(e, "em");
    expect((await e.simState()).tenants[TENANT].externalUsers["group member two"]?.groups ?? []).not.toContain("Team");
    // once A is gone, B holds "Team" and its member joins it
    expect((await e.scim("em").delete(`/Groups/${a}`)).status).toBe(204);
    await synced("em", "group", b, "group B synced after A's delete");
    await waitFor(async () => (await e.simState()).tenants[TENANT]?.externalUsers["group member two"]?.groups.includes("Team"), 15000, "u2 in Team");
  });
});
