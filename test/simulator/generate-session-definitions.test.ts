/**
 * Contract tests of POST /v1/embed/generate-session: "Rules for `groupDefinitions` and
 * `userAttributeDefinitions`" (rules 1–6) and the `cannot change type` / duplicate rows of "Errors".
 */
import type { RunningSimulator } from "../../src/simulator";
import { generateSession, startTestSimulator, tenantState } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());
const base = { deploymentId: 1, externalId: "u@x.com", creatorMode: true, embedTenantName: "tenant-one" };
const session = (extra: object) => generateSession(sim, { ...base, ...extra });
const tenant = () => tenantState(sim, "tenant-one");

describe("requirements (rule 1)", () => {
  it.each(["groupDefinitions", "userAttributeDefinitions", "tenantGroupDefinitions"])("should reject %s without creatorMode: true", async (f) => {
    const value = f === "userAttributeDefinitions" ? [{ name: "a", type: "string" }] : [{ name: "a" }];
    const res = await session({ creatorMode: false, [f]: value });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(`${f} requires creatorMode: true`);
  });

  it.each(["groupDefinitions", "userAttributeDefinitions"])("should reject %s without an embedTenantName", async (f) => {
    const value = f === "userAttributeDefinitions" ? [{ name: "a", type: "string" }] : [{ name: "a" }];
    const res = await generateSession(sim, { deploymentId: 1, externalId: "u", creatorMode: true, [f]: value });
    expect(res.body.error).toBe(`${f} requires an embedTenantName`);
  });

  it("should reject definitions when the useCreatorMode tenant flag is off", async () => {
    await sim.close();
    sim = await startTestSimulator({ tenant: { name: "acme", useCreatorMode: false } });
    const res = await session({ groupDefinitions: [{ name: "a" }] });
    expect(res.body.error).toBe("creatorMode requires the useCreatorMode tenant flag");
    expect(sim.state.snapshot().tenants).toEqual({});
  });
});

describe("upsert (rules 2–4)", () => {
  it("should upsert definitions into the embed-tenant scope only, never tenant-wide", async () => {
    await session({ groupDefinitions: [{ name: "Sales2" }], userAttributeDefinitions: [{ name: "team", type: "string" }] });
    expect(tenant().groups.map((g) => g.name)).toEqual(["Sales2"]);
    expect(tenant().attributeDefinitions.map((a) => a.name)).toEqual(["team"]);
    const nonCreator = await generateSession(sim, { deploymentId: 1, externalId: "v", groups: ["Sales2"], userAttributes: [{ name: "team", value: "x" }] });
    expect(nonCreator.body.error).toBe("User attributes not found");
    expect(sim.state.config.groups).toEqual(["Sales", "Finance"]);
  });

  it("should upsert definitions before groups and userAttributes are validated", async () => {
    const res = await session({ groupDefinitions: [{ name: "Viewers" }], userAttributeDefinitions: [{ name: "team", type: "string" }], groups: ["Viewers", "Ghosts"] });
    expect(res.body.error).toBe("Groups with names Ghosts not found");
    expect(tenant().groups.map((g) => g.name)).toEqual(["Viewers"]);
    expect(tenant().attributeDefinitions.map((a) => a.name)).toEqual(["team"]);
    expect(tenant().externalUsers).toEqual({});
  });

  it("should give the same end state when the same request is sent twice", async () => {
    const req = { groupDefinitions: [{ name: "Viewers", description: "read only" }], userAttributeDefinitions: [{ name: "team", type: "string", displayName: "Team" }], groups: ["Viewers"], userAttributes: [{ name: "team", value: "blue" }] };
    await session(req);
    const first = structuredClone(tenant());
    await session(req);
    const second = tenant();
    expect({ ...second, externalUsers: {} }).toEqual({ ...first, externalUsers: {} });
    expect({ ...second.externalUsers["u@x.com"], updatedAt: 0 }).toEqual({ ...first.externalUsers["u@x.com"], updatedAt: 0 });
  });

  it("should reuse an existing group of the same name (rule 3)", async () => {
    await session({ groupDefinitions: [{ name: "Viewers" }] });
    const id = tenant().groups[0].id;
    await session({ groupDefinitions: [{ name: "Viewers" }] });
    expect(tenant().groups).toEqual([{ id, name: "Viewers" }]);
  });

  it("should update a group description when supplied and different, and never clear it (rule 3)", async () => {
    await session({ groupDefinitions: [{ name: "Viewers", description: "one" }] });
    await session({ groupDefinitions: [{ name: "Viewers", description: "two" }] });
    expect(tenant().groups[0].description).toBe("two");
    await session({ groupDefinitions: [{ name: "Viewers" }] });
    await session({ groupDefinitions: [{ name: "Viewers", description: "" }] });
    expect(tenant().groups[0].description).toBe("two");
  });

  it("should store every attribute definition field and update optional ones when supplied and different (rule 4)", async () => {
    await session({ userAttributeDefinitions: [{ name: "team", type: "string", displayName: "Team", defaultValue: "none", description: "d1" }] });
    await session({ userAttributeDefinitions: [{ name: "team", type: "string", description: "d2" }] });
    expect(tenant().attributeDefinitions).toEqual([{ id: expect.any(Number), name: "team", type: "string", displayName: "Team", defaultValue: "none", description: "d2" }]);
  });

  it.each(["string", "number", "string_array", "number_array", "boolean"])("should accept attribute type %s", async (type) => {
    expect((await session({ userAttributeDefinitions: [{ name: "a", type }] })).status).toBe(200);
  });

  it("should reject an attribute type outside the five", async () => {
    expect((await session({ userAttributeDefinitions: [{ name: "a", type: "date" }] })).status).toBe(400);
  });

  it("should reject a definition without a name", async () => {
    expect((await session({ groupDefinitions: [{ description: "x" }] })).status).toBe(400);
  });
});

describe("type immutability (rule 5)", () => {
  it("should fail with cannot change type and upsert nothing (Errors row 8)", async () => {
    await session({ userAttributeDefinitions: [{ name: "team", type: "string" }] });
    const before = structuredClone(tenant());
    const res = await session({
      groupDefinitions: [{ name: "NewGroup" }],
      userAttributeDefinitions: [{ name: "other", type: "number" }, { name: "team", type: "number" }],
      tenantGroupDefinitions: [{ name: "NewTenantGroup" }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "cannot change type" });
    expect(tenant()).toEqual(before);
  });

  it("should answer the configured status for cannot change type", async () => {
    await sim.close();
    sim = await startTestSimulator({ statusCodes: { cannotChangeType: 409 } });
    await session({ userAttributeDefinitions: [{ name: "team", type: "string" }] });
    expect((await session({ userAttributeDefinitions: [{ name: "team", type: "boolean" }] })).status).toBe(409);
  });
});

describe("duplicates (rule 6)", () => {
  it.each(["groupDefinitions", "userAttributeDefinitions", "tenantGroupDefinitions"])("should reject duplicate names in %s and upsert nothing (Errors row 5)", async (f) => {
    const item = f === "userAttributeDefinitions" ? { name: "a", type: "string" } : { name: "a" };
    const res = await session({ [f]: [item, item] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(`duplicate name a in ${f}`);
    expect(sim.state.snapshot().tenants).toEqual({});
  });
});
