/**
 * Embed target, groups: "A group deleted in the IdP is removed from its members, then deleted with
 * `DELETE /v1/embed-tenants/{name}/groups/{id}` (id found through the cursor list)". The client's page size
 * is 2 here, so finding a group's id walks several pages of the cursor list.
 */
import { EmbedApi } from "../../src/platform/embed-api";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";

const TENANT = "em-tenant";
const LIST = "GET /v1/embed-tenants/:embedTenantName/groups";
const DELETE = "DELETE /v1/embed-tenants/:embedTenantName/groups/:id";
const GROUP_SCHEMA = ["urn:ietf:params:scim:schemas:core:2.0:Group"];

let e: SyncEnv;
/** What the platform held (user's groups, tenant groups) at each embed group delete. */
let atDelete: Array<{ id: string; carriers: string[] }> = [];
const origDelete = EmbedApi.prototype.deleteGroup;
const spy = jest.spyOn(EmbedApi.prototype, "deleteGroup").mockImplementation(async function (this: EmbedApi, tenant: string, id: number | string) {
  const t = (await e.simState()).tenants[tenant];
  const name = t.groups.find((g) => String(g.id) === String(id))?.name;
  atDelete.push({ id: String(id), carriers: Object.values(t.externalUsers).filter((u) => name && u.groups.includes(name)).map((u) => u.externalId) });
  return origDelete.call(this, tenant, id);
});

beforeAll(async () => { e = await startSyncEnv({ em: { platform: { pageSize: 2 } } }); });
beforeEach(() => { atDelete = []; });
afterAll(async () => {
  spy.mockRestore();
  await e.close();
});

const tenant = async () => (await e.simState()).tenants[TENANT];
const counter = async (name: string) => (await e.simState()).counters.endpoints[name] ?? { reads: 0, writes: 0 };

async function user(userName: string): Promise<string> {
  const res = await e.scim("em").post("/Users", userBody(userName));
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function group(displayName: string, members: string[]): Promise<string> {
  const res = await e.scim("em").post("/Groups", { schemas: GROUP_SCHEMA, displayName, members: members.map((value) => ({ value })) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function groupsOf(externalId: string): Promise<string[]> {
  return [...((await tenant())?.externalUsers[externalId]?.groups ?? [])].sort();
}

describe("embed target: IdP group delete", () => {
  it("should remove the group from its members first, then delete it on the platform by the id found through several list pages", async () => {
    const a = await user("gd.alice");
    const b = await user("gd.bob");
    for (const n of ["GD One", "GD Two", "GD Three", "GD Four"]) await group(n, [a]);
    // the doomed group is made last, so it is the newest embed group: on the last page of the cursor list
    await waitFor(async () => (await groupsOf("gd.alice")).length === 4, 10000, "first memberships applied");
    const doomed = await group("GD Doomed", [a, b]);
    await waitFor(async () => (await groupsOf("gd.alice")).length === 5 && (await groupsOf("gd.bob")).length === 1, 10000, "memberships applied");
    await waitIdle(e, "em");
    const doomedId = (await tenant()).groups.find((g) => g.name === "GD Doomed")!.id;
    const groupsBefore = (await tenant()).groups.length;
    expect(groupsBefore).toBe(5); // 3 pages of 2
    const listBefore = (await counter(LIST)).reads;

    expect((await e.scim("em").delete(`/Groups/${doomed}`)).status).toBe(204);
    await waitFor(async () => !(await tenant()).groups.some((g) => g.name === "GD Doomed"), 15000, "embed group deleted");
    await waitIdle(e, "em");

    expect(await groupsOf("gd.alice")).toEqual(["GD Four", "GD One", "GD Three", "GD Two"]);
    expect(await groupsOf("gd.bob")).toEqual([]);
    // deleted by its id, once, after no external user carried it any more
    expect(atDelete).toEqual([{ id: String(doomedId), carriers: [] }]);
    expect((await counter(DELETE)).writes).toBe(1);
    // the id was found by walking the cursor list to its last page, which holds the newest group
    expect((await counter(LIST)).reads - listBefore).toBe(Math.ceil(groupsBefore / 2));
    expect(await e.state.get("em", "group", doomed)).toMatchObject({ attempts: 0 });
    expect((await e.state.get("em", "group", doomed)).status).toBeUndefined();
  });

  it("should delete an emptied group that no member carries without touching the users", async () => {
    const c = await user("gd.carol");
    const g = await group("GD Empty Later", [c]);
    await waitFor(async () => (await groupsOf("gd.carol")).includes("GD Empty Later"), 10000, "membership");
    await e.scim("em").patch(`/Groups/${g}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "remove", path: `members[value eq "${c}"]` }] });
    await waitFor(async () => (await groupsOf("gd.carol")).length === 0, 10000, "membership removed");
    expect((await e.scim("em").delete(`/Groups/${g}`)).status).toBe(204);
    await waitFor(async () => !(await tenant()).groups.some((x) => x.name === "GD Empty Later"), 15000, "embed group deleted");
    expect(atDelete).toHaveLength(1);
  });
});

describe("embed target: IdP group rename", () => {
  it("should move the members to the new name and delete the old embed group", async () => {
    const a = await user("gr.alice");
    const b = await user("gr.bob");
    const g = await group("GR Eng", [a, b]);
    await waitFor(async () => (await groupsOf("gr.alice")).includes("GR Eng") && (await groupsOf("gr.bob")).includes("GR Eng"), 10000, "memberships");
    const res = await e.scim("em").patch(`/Groups/${g}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "displayName", value: "GR Engineering" }] });
    expect(res.status).toBeLessThan(300);
    await waitFor(async () => !(await tenant()).groups.some((x) => x.name === "GR Eng"), 15000, "old name deleted");
    await waitIdle(e, "em");
    expect(await groupsOf("gr.alice")).toEqual(["GR Engineering"]);
    expect(await groupsOf("gr.bob")).toEqual(["GR Engineering"]);
    expect((await tenant()).groups.map((x) => x.name)).toContain("GR Engineering");
    expect(atDelete).toHaveLength(1);
    expect(atDelete[0].carriers).toEqual([]);
    expect(await e.state.get("em", "group", g)).toMatchObject({ appliedName: "GR Engineering", status: "synced" });
  });
});
