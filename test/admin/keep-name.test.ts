/**
 * An operator resolves a same-name group conflict (two IdP groups, one platform name) through the real
 * server, Redis, BullMQ and the simulator: the status page offers "Keep the platform name for this group" on
 * the group that failed with the conflict (a form carrying the session's form token), and
 * POST /admin/directories/:id/groups/:groupId/keep-name gives it the platform group — same platform id,
 * its members instead of the other's — while the displaced group fails with the conflict and forgets it.
 */
import request from "supertest";
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { createGroup, createUser, simGroup, simUser, waitStatus } from "../helpers/sync-wait";

let e: SyncEnv;
let s: BridgeServer;
beforeAll(async () => {
  e = await startSyncEnv();
  s = await startBridgeServer(e);
});
afterAll(async () => { await s.close(); await e.close(); });

describe("keep-name: which group keeps the platform name", () => {
  it("should give the platform group to the chosen group, with its members, and displace the other", async () => {
    const [u1, u2] = [await createUser(e, "wf", "first.member@example.com"), await createUser(e, "wf", "second.member@example.com")];
    const p1 = (await waitStatus(e, "wf", "user", u1, "synced")).platformId;
    const p2 = (await waitStatus(e, "wf", "user", u2, "synced")).platformId;
    // the first group holds the name; the second (the one the IdP uses) fails on it
    const first = await createGroup(e, "wf", "Twice Made", [u1]);
    const { platformId } = await waitStatus(e, "wf", "group", first, "synced");
    const second = await createGroup(e, "wf", "Twice Made", [u2]);
    expect((await waitStatus(e, "wf", "group", second, "failed")).lastError).toMatch(/^name conflict/);

    // the status page offers the answer on the failed group, in a form with the session's form token
    const login = await request(s.url).post("/admin/login").type("form").send({ token: ADMIN_TOKEN });
    const cookie = String(login.headers["set-cookie"][0]).split(";")[0];
    const page = (await request(s.url).get(`/admin/status/wf/groups/${second}`).set("Cookie", cookie).set("Accept", "text/html")).text;
    const form = /<form[^>]*keep-name[^>]*>[\s\S]*?<\/form>/.exec(page)?.[0] ?? "";
    expect(form).toContain(`action="/admin/directories/wf/groups/${second}/keep-name"`);
    expect(form).toMatch(/name="_formToken" value="[A-Za-z0-9_-]{32}"/);
    const holderPage = (await request(s.url).get(`/admin/status/wf/groups/${first}`).set("Cookie", cookie).set("Accept", "text/html")).text;
    expect(holderPage).not.toContain("keep-name");

    // the answer through the admin API
    const res = await s.admin(`/directories/wf/groups/${second}/keep-name`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: "Twice Made", group: second, displaced: first });

    const st = await waitStatus(e, "wf", "group", second, "synced");
    expect(st.platformId).toBe(platformId);
    const g = await waitFor(async () => {
      const x = await simGroup(e, "Twice Made");
      return x && x.members.length === 1 && x.members[0].value === p2 ? x : undefined;
    }, 10000, "the platform group with the chosen group's members");
    expect(g.id).toBe(platformId);
    expect((await e.simState()).scim.groups.filter((x) => x.displayName.toLowerCase() === "twice made")).toHaveLength(1);
    const displaced = await waitStatus(e, "wf", "group", first, "failed");
    expect(displaced.platformId).toBeUndefined();
    expect(displaced.lastError).toMatch(/^name conflict/);
    expect(p1).not.toBe(p2);
    expect(await simUser(e, "first.member@example.com")).toMatchObject({ id: p1 });

    // asking again changes nothing; an unknown group is 404
    expect(await (await s.admin(`/directories/wf/groups/${second}/keep-name`, { method: "POST" })).json()).toEqual({ name: "Twice Made", group: second });
    expect((await s.admin("/directories/wf/groups/no-such-group/keep-name", { method: "POST" })).status).toBe(404);
    expect((await s.admin(`/directories/nowhere/groups/${second}/keep-name`, { method: "POST" })).status).toBe(404);
  }, 60000);

  it("should refuse a cookie request without the form token (the forgery guard covers the new form)", async () => {
    const login = await request(s.url).post("/admin/login").type("form").send({ token: ADMIN_TOKEN });
    const cookie = String(login.headers["set-cookie"][0]).split(";")[0];
    const res = await request(s.url).post("/admin/directories/wf/groups/any/keep-name").set({ Cookie: cookie, Origin: s.url }).type("form").send({});
    expect(res.status).toBe(403);
  });
});
