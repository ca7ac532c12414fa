/**
 * Deleting a directory with `platform=deprovision` (issue 13 item 1, through the safeguard of issue 9 item
 * 2), end to end over HTTP: a runtime directory syncs users and a group to the platform simulator; once
 * disabled, `DELETE …?platform=deprovision` lists what it would deprovision (only what the bridge manages
 * for this directory: no foreign platform user, nothing of another directory) and deprovisions nothing;
 * cancel leaves the directory disabled and intact; confirm deactivates its users, removes its group, then
 * purges every key of the directory; an embed directory's external users are cleared and its embed-tenant
 * groups deleted. Who, when and how many are in the directories' audit list.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { platformScim, writes } from "../helpers/resync";
import { createUser, waitAllSynced } from "../helpers/sync-wait";
import { scanKeys } from "../helpers/redis";

let e: SyncEnv;
let s: BridgeServer;
let token: string;
const zeta = (base: string) => ({ id: "zeta", displayName: "Zeta Ltd", target: "workforce", platform: { baseUrl: base, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" }, rateLimit: { max: 1000, durationMs: 1000 } });
const PEOPLE = ["ann@zeta.example", "bob@zeta.example", "cid@zeta.example"];

const json = async (r: Response) => ({ status: r.status, body: await r.json() as Record<string, unknown> });
const scim = (method: string, path: string, body?: object) => fetch(`${s.url}/scim/v2/zeta${path}`, {
  method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" }, body: body && JSON.stringify(body),
});
const del = (query: string, by = "Dana Ops") => s.admin(`/directories/zeta?${query}`, { method: "DELETE", body: JSON.stringify({ by }) });
const zetaOnPlatform = async () => (await e.simState()).scim.users.filter((u) => u.externalId?.startsWith("zeta:"));
const keysOfZeta = () => scanKeys(e.redis, `${e.prefix}:{zeta}:*`);
const statusPage = async () => (await s.admin("/status/zeta", { headers: { Accept: "text/html" } })).text();
/** The status page's delete form, posted as the browser does. */
const form = (fields: Record<string, string>) => s.admin("/directories/zeta/delete", {
  method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString(),
});

/** The held deprovision run: the 202 answer, or (a slow worker) the progress once it holds. */
async function held(res: Response): Promise<{ resync: string; holdReason: string; deprovisions: Array<{ kind: string; name: string }> }> {
  const r = await json(res);
  expect(r.status).toBe(202);
  if (r.body.status === "awaiting-confirmation") return r.body as never;
  expect(r.body.status).toBe("planning");
  return waitFor(async () => {
    const p = (await json(await s.admin("/directories/zeta/resync"))).body;
    return p.id === r.body.resync && p.phase === "awaiting-confirmation" ? { ...p, resync: p.id } as never : undefined;
  }, 20000, "the deprovision run held");
}

beforeAll(async () => {
  e = await startSyncEnv();
  s = await startBridgeServer(e);
  const created = await json(await s.admin("/directories", { method: "POST", body: JSON.stringify(zeta(e.sim.baseUrl)) }));
  expect(created.status).toBe(201);
  token = (created.body.token as { secret: string }).secret;
  const ids: string[] = [];
  for (const u of PEOPLE) {
    const r = await json(await scim("POST", "/Users", userBody(u)));
    expect(r.status).toBe(201);
    ids.push(r.body.id as string);
  }
  const g = await scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "zeta-staff", members: ids.slice(0, 2).map((value) => ({ value })) });
  expect(g.status).toBe(201);
  await waitFor(async () => (await e.simState()).scim.groups.find((x) => x.displayName === "zeta-staff" && x.members.length === 2), 20000, "zeta-staff with 2 members on the platform");
  await waitAllSynced(e, "zeta", "user", ids);
  // what the bridge does not manage for zeta: a platform user made by hand, and a user of config directory wf
  await platformScim(e, "POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "hand.made@zeta.example", active: true });
  const wfUser = await createUser(e, "wf", "wanda@wf.example");
  await waitAllSynced(e, "wf", "user", [wfUser]);
}, 60000);
afterAll(async () => { await s.close(); await e.close(); });

describe("DELETE /admin/directories/:id?platform=deprovision", () => {
  it("should refuse an enabled directory and a config-file one", async () => {
    expect((await del("platform=deprovision")).status).toBe(409);
    expect((await s.admin("/directories/wf?platform=deprovision", { method: "DELETE" })).status).toBe(409);
    expect((await del("platform=deprovision&confirm=true")).status).toBe(409);
  });

  it("should list what it would deprovision, deprovision nothing, and keep everything when cancelled", async () => {
    expect((await s.admin("/directories/zeta/disable", { method: "POST" })).status).toBe(200);
    // the status page offers the delete of a disabled runtime directory, with the platform choice
    expect(await statusPage()).toContain('<a href="/admin/status/zeta/delete" data-delete="zeta">Delete…</a>');
    const deleting = await (await s.admin("/status/zeta/delete", { headers: { Accept: "text/html" } })).text();
    expect(deleting).toMatch(/<form method="post" action="\/admin\/directories\/zeta\/delete">[\s\S]*value="leave" checked[\s\S]*value="deprovision"/);
    expect(deleting).not.toContain('http-equiv="refresh"'); // a choice is not reset under the person making it
    expect((await s.admin("/status/wf/delete", { headers: { Accept: "text/html" } })).status).toBe(409);
    const writesBefore = await writes(e);
    const plan = await held(await del("platform=deprovision"));
    expect(plan.holdReason).toMatch(/platform=deprovision: 4 platform user\(s\) and group\(s\)/);
    // only what the bridge manages for zeta: not the hand-made platform user, nothing of wf
    expect(plan.deprovisions.map((it) => `${it.kind}:${it.name}`).sort()).toEqual([...PEOPLE.map((u) => `user:${u}`), "group:zeta-staff"].sort());
    expect(await writes(e)).toBe(writesBefore);
    expect((await zetaOnPlatform()).every((u) => u.active !== false)).toBe(true);
    expect((await scim("GET", "/Users")).status).toBe(403); // SCIM still refuses while it is planned
    // asked again: the same held run, not a second one
    expect((await held(await del("platform=deprovision"))).resync).toBe(plan.resync);
    // a directory being deleted is not enabled behind the operator's back
    expect((await s.admin("/directories/zeta/enable", { method: "POST" })).status).toBe(409);

    // the page lists what it would deprovision, with the answers (the same forms the page posts)
    const page = await statusPage();
    expect(page).toContain("zeta: delete awaits confirmation");
    expect(page).toContain("cid@zeta.example");
    expect(page).toContain("Confirm: deprovision and delete");
    expect(page).not.toContain('data-delete="zeta"');

    const cancelled = await json(await del("platform=deprovision&cancel=true"));
    expect(cancelled).toMatchObject({ status: 200, body: { cancelled: 4, resync: plan.resync } });
    expect(await writes(e)).toBe(writesBefore);
    expect((await zetaOnPlatform()).every((u) => u.active !== false)).toBe(true);
    expect((await json(await s.admin("/directories/zeta"))).body).toMatchObject({ disabled: true, users: 3, groups: 1 });
    expect(await e.redis.hexists(`${e.prefix}:directories`, "zeta")).toBe(1);
    expect(JSON.parse((await e.redis.hget(`${e.prefix}:directories`, "zeta"))!).deprovision).toBeUndefined();
    expect((await del("platform=deprovision&confirm=true")).status).toBe(409); // nothing awaits an answer now
  });

  it("should deactivate the users and remove the group once confirmed, then purge every key of the directory", async () => {
    // asked from the status page's form this time (it is answered with the page)
    const asked = await form({ platform: "deprovision", by: "Dana Ops" });
    expect(asked.status).toBe(303);
    const plan = await waitFor(async () => {
      const p = (await json(await s.admin("/directories/zeta/resync"))).body;
      return p.status === "awaiting-confirmation" && p.phase === "awaiting-confirmation" ? p as { id: string; deprovisions: unknown[] } : undefined;
    }, 20000, "the deprovision run held");
    expect(plan.deprovisions).toHaveLength(4);
    const confirmed = await json(await del("platform=deprovision&confirm=true", "Erin Lead"));
    expect(confirmed).toMatchObject({ status: 202, body: { confirmed: 4, resync: plan.id } });

    await waitFor(async () => !(await e.redis.hexists(`${e.prefix}:directories`, "zeta")) && (await keysOfZeta()).length === 0, 30000, "zeta deleted and purged");
    expect(await keysOfZeta()).toEqual([]);
    expect(await e.queues.jobsOf("zeta", ["waiting", "prioritized", "delayed", "completed", "failed", "active"])).toEqual([]);
    expect((await s.admin("/directories/zeta")).status).toBe(404);
    const platform = await e.simState();
    const users = platform.scim.users.filter((u) => u.externalId?.startsWith("zeta:"));
    expect(users.map((u) => [u.userName, u.active])).toEqual(expect.arrayContaining(PEOPLE.map((u) => [u, false])));
    expect(users).toHaveLength(3);
    expect(platform.scim.groups.find((g) => g.displayName === "zeta-staff")).toBeUndefined();
    // untouched: the hand-made platform user and wf's user
    expect(platform.scim.users.find((u) => u.userName === "hand.made@zeta.example")?.active).not.toBe(false);
    expect(platform.scim.users.find((u) => u.userName === "wanda@wf.example")?.active).not.toBe(false);

    const audit = (await json(await s.admin("/directories/zeta/audit"))).body as unknown as Array<Record<string, unknown>>;
    expect(audit.map((a) => [a.action, a.count])).toEqual([
      ["deleted", 4], ["deprovision-confirmed", 4], ["deprovision-requested", 4], ["deprovision-cancelled", 4], ["deprovision-requested", 4],
    ]);
    expect(audit[1].by).toMatch(/^Erin Lead \(admin API from /);
    expect(audit[2].by).toMatch(/^Dana Ops \(status page from /);
    expect(audit[3].by).toMatch(/^Dana Ops \(admin API from /);
    expect(audit[0]).toMatchObject({ platform: "deprovision", deletedKeys: expect.any(Number), at: expect.any(String) });
  });
});

describe("DELETE …?platform=deprovision of an embed directory", () => {
  const TENANT = "emz-tenant";
  let emzToken: string;
  const emz = (method: string, path: string, body?: object) => fetch(`${s.url}/scim/v2/emz${path}`, {
    method, headers: { Authorization: `Bearer ${emzToken}`, "Content-Type": "application/scim+json" }, body: body && JSON.stringify(body),
  });
  const tenant = async () => (await e.simState()).tenants[TENANT];

  it("should hold, then clear the external users and delete the embed-tenant groups the bridge applied, then purge", async () => {
    const input = { id: "emz", target: "embed", embed: { tenantName: TENANT }, platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" }, rateLimit: { max: 1000, durationMs: 1000 } };
    const created = await json(await s.admin("/directories", { method: "POST", body: JSON.stringify(input) }));
    expect(created.status).toBe(201);
    emzToken = (created.body.token as { secret: string }).secret;
    const u = await json(await emz("POST", "/Users", userBody("ext.one@emz.example")));
    expect(u.status).toBe(201);
    expect((await emz("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Emz Team", members: [{ value: u.body.id }] })).status).toBe(201);
    await waitFor(async () => (await tenant())?.externalUsers["ext.one@emz.example"]?.groups.length === 1, 20000, "the external user in its group");
    expect((await s.admin("/directories/emz/disable", { method: "POST" })).status).toBe(200);

    const asked = await json(await s.admin("/directories/emz?platform=deprovision", { method: "DELETE" }));
    expect(asked.status).toBe(202);
    const plan = asked.body.status === "awaiting-confirmation" ? asked.body : await waitFor(async () => {
      const p = (await json(await s.admin("/directories/emz/resync"))).body;
      return p.phase === "awaiting-confirmation" ? p : undefined;
    }, 20000, "the embed deprovision run held");
    expect((plan.deprovisions as Array<{ kind: string; name: string }>).map((it) => `${it.kind}:${it.name}`).sort()).toEqual(["embed-group:Emz Team", "user:ext.one@emz.example"]);
    expect((await tenant())!.externalUsers["ext.one@emz.example"].groups).toEqual(["Emz Team"]); // nothing done yet

    expect((await s.admin("/directories/emz?platform=deprovision&confirm=true", { method: "DELETE" })).status).toBe(202);
    await waitFor(async () => !(await e.redis.hexists(`${e.prefix}:directories`, "emz")) && (await scanKeys(e.redis, `${e.prefix}:{emz}:*`)).length === 0, 30000, "emz deleted and purged");
    const t = (await tenant())!;
    expect(t.externalUsers["ext.one@emz.example"].groups).toEqual([]);
    expect(t.groups.map((g) => g.name)).not.toContain("Emz Team");
  });
});
