/**
 * ScimApi against a real simulator over HTTP: users (list all pages, find by userName, create, replace,
 * patch, deactivate, delete) and groups (list, find by displayName, create, rename, member batches, delete).
 */
import { createPlatformClient, scimString, type PlatformClient } from "../../src/platform";
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, startTestSimulator } from "../helpers/simulator";

let sim: RunningSimulator;
let platform: PlatformClient;
beforeEach(async () => {
  sim = await startTestSimulator();
  platform = createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEYS.unscoped, deploymentId: 1, pageSize: 3, scimPageSize: 3, memberBatchSize: 2 });
});
afterEach(async () => {
  await platform.close();
  await sim.close();
});
const counters = () => sim.state.snapshot().counters.endpoints;

describe("ScimApi users", () => {
  it("should list every user across pages of scimPageSize", async () => {
    for (let i = 0; i < 7; i++) await platform.scim.createUser({ userName: `user${i}@x.com` });
    const users = await platform.scim.listUsers();
    expect(users.map((u) => u.userName)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `user${i}@x.com`));
    expect(counters()["GET /scim/v2/Users"].reads).toBe(3);
  });

  it("should list nothing from an empty platform in one call", async () => {
    expect(await platform.scim.listUsers()).toEqual([]);
    expect(counters()["GET /scim/v2/Users"].reads).toBe(1);
  });

  it("should find a user by userName, escaping quotes, and return null when absent", async () => {
    const created = await platform.scim.createUser({ userName: 'o"brien\\x@x.com' });
    expect((await platform.scim.findUserByUserName('O"BRIEN\\x@x.com'))?.id).toBe(created.id);
    expect(await platform.scim.findUserByUserName("nobody")).toBeNull();
  });

  it("should create, replace, patch, deactivate and delete a user", async () => {
    const u = await platform.scim.createUser({ userName: "ann@x.com", name: { givenName: "Ann" } });
    expect(u).toMatchObject({ id: expect.any(String), userName: "ann@x.com", active: true });
    expect(await platform.scim.replaceUser(u.id, { userName: "ann@x.com", displayName: "Ann A" })).toMatchObject({ displayName: "Ann A" });
    expect(await platform.scim.patchUser(u.id, [{ op: "replace", path: "displayName", value: "Ann B" }])).toMatchObject({ displayName: "Ann B" });
    expect((await platform.scim.deactivateUser(u.id)).active).toBe(false);
    expect((await platform.scim.getUser(u.id))?.active).toBe(false);
    expect(await platform.scim.deleteUser(u.id)).toBe(true);
    expect(await platform.scim.deleteUser(u.id)).toBe(false);
    expect(await platform.scim.getUser(u.id)).toBeNull();
  });

  it("should authenticate with Api-Key when scimAuthScheme says so", async () => {
    const c = createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEYS.unscoped, deploymentId: 1, scimAuthScheme: "Api-Key" });
    expect(await c.scim.listUsers()).toEqual([]);
    await c.close();
  });
});

describe("ScimApi groups", () => {
  it("should create a group with members in batches of memberBatchSize", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await platform.scim.createUser({ userName: `m${i}` })).id);
    const g = await platform.scim.createGroup({ displayName: "Eng", members: ids });
    expect((await platform.scim.getGroup(g.id))?.members?.map((m) => m.value)).toEqual(ids);
    expect(counters()["POST /scim/v2/Groups"].writes).toBe(1);
    expect(counters()["PATCH /scim/v2/Groups/:id"].writes).toBe(2);
  });

  it("should add and remove members in batches and report the PATCH calls made", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await platform.scim.createUser({ userName: `m${i}` })).id);
    const g = await platform.scim.createGroup({ displayName: "Eng" });
    expect(await platform.scim.addMembers(g.id, ids)).toBe(3);
    expect(await platform.scim.removeMembers(g.id, ids.slice(0, 3))).toBe(2);
    expect((await platform.scim.getGroup(g.id))?.members?.map((m) => m.value)).toEqual(ids.slice(3));
    expect(await platform.scim.addMembers(g.id, [])).toBe(0);
  });

  it("should list groups across pages, with or without members", async () => {
    for (let i = 0; i < 4; i++) await platform.scim.createGroup({ displayName: `G${i}` });
    expect((await platform.scim.listGroups()).map((g) => g.displayName)).toEqual(["G0", "G1", "G2", "G3"]);
    expect((await platform.scim.listGroups({ excludeMembers: true })).every((g) => g.members === undefined)).toBe(true);
  });

  it("should find a group by displayName, rename it and delete it", async () => {
    const g = await platform.scim.createGroup({ displayName: "Eng" });
    expect((await platform.scim.findGroupByDisplayName("Eng"))?.id).toBe(g.id);
    await platform.scim.renameGroup(g.id, "Engineering");
    expect(await platform.scim.findGroupByDisplayName("Eng")).toBeNull();
    expect((await platform.scim.getGroup(g.id, { excludeMembers: true }))?.displayName).toBe("Engineering");
    expect(await platform.scim.deleteGroup(g.id)).toBe(true);
    expect(await platform.scim.deleteGroup(g.id)).toBe(false);
  });
});

describe("scimString", () => {
  it("should escape backslashes and quotes", () => {
    expect(scimString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });
});
