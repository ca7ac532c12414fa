/**
 * The simulator's embed-tenant admin endpoints over HTTP: GET groups with cursor pagination (`first`,
 * `after` → `items`, `pageInfo`), DELETE a group, DELETE the tenant.
 */
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, generateSession, http, startTestSimulator, tenantState } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());
const AUTH = `Api-Key ${KEYS.unscoped}`;
const defineGroups = (names: string[]) =>
  generateSession(sim, { deploymentId: 1, externalId: "u", creatorMode: true, embedTenantName: "tenant-one", groupDefinitions: names.map((name) => ({ name })), groups: names });

describe("GET /v1/embed-tenants/{embedTenantName}/groups", () => {
  it("should page with first/after until hasNextPage is false", async () => {
    await defineGroups(["g1", "g2", "g3", "g4", "g5"]);
    const names: string[] = [];
    let after = "";
    let pages = 0;
    for (;;) {
      const res = await http(sim).get(`/api/v1/embed-tenants/tenant-one/groups?first=2${after ? `&after=${after}` : ""}`).set("Authorization", AUTH);
      pages++;
      names.push(...res.body.items.map((g: { name: string }) => g.name));
      if (!res.body.pageInfo.hasNextPage) break;
      after = res.body.pageInfo.endCursor;
    }
    expect(names).toEqual(["g1", "g2", "g3", "g4", "g5"]);
    expect(pages).toBe(3);
  });

  it("should return integer ids and an empty list for an unknown tenant", async () => {
    await defineGroups(["g1"]);
    const res = await http(sim).get("/api/v1/embed-tenants/tenant-one/groups").set("Authorization", AUTH);
    expect(res.body.items[0]).toEqual({ id: expect.any(Number), name: "g1" });
    const none = await http(sim).get("/api/v1/embed-tenants/tenant-nope/groups").set("Authorization", AUTH);
    expect(none.body).toEqual({ items: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it("should answer 400 for first outside 1..cursorMaxFirst and for a bad cursor", async () => {
    expect((await http(sim).get("/api/v1/embed-tenants/tenant-one/groups?first=0").set("Authorization", AUTH)).status).toBe(400);
    expect((await http(sim).get("/api/v1/embed-tenants/tenant-one/groups?first=501").set("Authorization", AUTH)).status).toBe(400);
    expect((await http(sim).get("/api/v1/embed-tenants/tenant-one/groups?after=zzz").set("Authorization", AUTH)).status).toBe(400);
  });
});

describe("DELETE /v1/embed-tenants/{embedTenantName}/groups/{id}", () => {
  it("should delete the group and remove it from members' groups, then answer 404", async () => {
    await defineGroups(["g1", "g2"]);
    const id = tenantState(sim, "tenant-one").groups[0].id;
    expect((await http(sim).delete(`/api/v1/embed-tenants/tenant-one/groups/${id}`).set("Authorization", AUTH)).status).toBe(204);
    expect(tenantState(sim, "tenant-one").groups.map((g) => g.name)).toEqual(["g2"]);
    expect(tenantState(sim, "tenant-one").externalUsers.u.groups).toEqual(["g2"]);
    expect((await http(sim).delete(`/api/v1/embed-tenants/tenant-one/groups/${id}`).set("Authorization", AUTH)).status).toBe(404);
  });
});

describe("DELETE /v1/embed-tenants/{embedTenantName}/", () => {
  it("should delete the tenant with its users, groups and definitions", async () => {
    await defineGroups(["g1"]);
    expect((await http(sim).delete("/api/v1/embed-tenants/tenant-one/").set("Authorization", AUTH)).status).toBe(204);
    expect(tenantState(sim, "tenant-one")).toBeUndefined();
    expect((await http(sim).delete("/api/v1/embed-tenants/tenant-one/").set("Authorization", AUTH)).status).toBe(404);
  });
});
