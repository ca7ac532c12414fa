/**
 * Contract tests of POST /v1/embed/generate-session: "Rules for `groups`" (omitted / empty / populated,
 * tenant-wide vs creator-mode scope, `Groups with names <missing> not found`) and `tenantGroups`.
 */
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, generateSession, http, startTestSimulator, tenantState } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());
const groupsOf = (tenant = "acme") => tenantState(sim, tenant).externalUsers["u@x.com"].groups;
const session = (extra: object) => generateSession(sim, { deploymentId: 1, externalId: "u@x.com", ...extra });

describe("groups", () => {
  it("should keep existing memberships when the field is omitted", async () => {
    await session({ groups: ["Sales"] });
    await session({});
    expect(groupsOf()).toEqual(["Sales"]);
  });

  it("should clear all memberships for an empty array", async () => {
    await session({ groups: ["Sales", "Finance"] });
    await session({ groups: [] });
    expect(groupsOf()).toEqual([]);
  });

  it("should replace memberships by exactly the named groups for a populated array", async () => {
    await session({ groups: ["Sales"] });
    await session({ groups: ["Finance"] });
    expect(groupsOf()).toEqual(["Finance"]);
  });

  it("should fail with Groups with names <missing> not found, naming only the missing ones (Errors row 7)", async () => {
    const res = await session({ groups: ["Sales", "Ghosts", "Nobody"] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Groups with names Ghosts, Nobody not found" });
  });

  it("should leave memberships unchanged when a name does not resolve", async () => {
    await session({ groups: ["Sales"] });
    await session({ groups: ["Finance", "Ghosts"] });
    expect(groupsOf()).toEqual(["Sales"]);
  });

  it("should resolve SCIM-provisioned groups as tenant-wide groups", async () => {
    await http(sim).post("/api/scim/v2/Groups").set("Authorization", `Bearer ${KEYS.unscoped}`).send({ displayName: "Engineering" });
    expect((await session({ groups: ["Engineering"] })).status).toBe(200);
  });

  it("should resolve names against the embed tenant's scoped groups in creator mode", async () => {
    const base = { creatorMode: true, embedTenantName: "tenant-one" };
    expect((await session({ ...base, groups: ["Sales"] })).body.error).toBe("Groups with names Sales not found");
    expect((await session({ ...base, groupDefinitions: [{ name: "Viewers" }], groups: ["Viewers"] })).status).toBe(200);
    expect(groupsOf("tenant-one")).toEqual(["Viewers"]);
  });

  it("should not resolve scoped groups without creator mode", async () => {
    await session({ creatorMode: true, embedTenantName: "tenant-one", groupDefinitions: [{ name: "Viewers" }] });
    expect((await session({ embedTenantName: "tenant-one", groups: ["Viewers"] })).body.error).toBe("Groups with names Viewers not found");
  });

  it("should answer the configured status for unresolvable groups", async () => {
    await sim.close();
    sim = await startTestSimulator({ statusCodes: { groupsNotFound: 404 } });
    expect((await session({ groups: ["Ghosts"] })).status).toBe(404);
  });
});

describe("tenantGroups", () => {
  const base = { creatorMode: true, embedTenantName: "tenant-one" };

  it("should keep tenantGroups apart from groups", async () => {
    const res = await session({ ...base, tenantGroupDefinitions: [{ name: "Ops" }], tenantGroups: ["Ops"] });
    expect(res.status).toBe(200);
    const t = tenantState(sim, "tenant-one");
    expect(t.tenantGroups.map((g) => g.name)).toEqual(["Ops"]);
    expect(t.groups).toEqual([]);
    expect(t.externalUsers["u@x.com"]).toMatchObject({ tenantGroups: ["Ops"], groups: [] });
  });

  it("should fail for a tenant group that is not defined, even if a group of that name exists", async () => {
    await session({ ...base, groupDefinitions: [{ name: "Ops" }] });
    expect((await session({ ...base, tenantGroups: ["Ops"] })).body.error).toBe("Groups with names Ops not found");
  });
});
