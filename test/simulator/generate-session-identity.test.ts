/**
 * Contract tests of POST /v1/embed/generate-session: identity fields (externalId / internalId), fields
 * forbidden with internalId, embedTenantName, creatorMode, settings, Content-Type and plan.
 */
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, generateSession, http, startTestSimulator, tenantState } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());

describe("POST /v1/embed/generate-session — identity", () => {
  it("should return {sessionId} for an externalId", async () => {
    const res = await generateSession(sim, { deploymentId: 1, externalId: "a@x.com" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["sessionId"]);
    expect(res.body.sessionId.length).toBeGreaterThan(16);
  });

  it("should reject a request with neither externalId nor internalId", async () => {
    const res = await generateSession(sim, { deploymentId: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("exactly one of externalId / internalId is required");
  });

  it("should reject a request with both externalId and internalId", async () => {
    const res = await generateSession(sim, { deploymentId: 1, externalId: "a", internalId: "analyst@acme.example" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("exactly one of externalId / internalId is required");
  });

  it("should store externalId lower-cased and trimmed", async () => {
    await generateSession(sim, { deploymentId: 1, externalId: "  Mixed@Case.COM " });
    await generateSession(sim, { deploymentId: 1, externalId: "mixed@case.com" });
    expect(Object.keys(tenantState(sim, "acme").externalUsers)).toEqual(["mixed@case.com"]);
  });

  it("should reject an externalId that is not lower-case and trimmed when externalIdPolicy is reject", async () => {
    await sim.close();
    sim = await startTestSimulator({ externalIdPolicy: "reject" });
    expect((await generateSession(sim, { deploymentId: 1, externalId: " A@x.com" })).status).toBe(400);
    expect((await generateSession(sim, { deploymentId: 1, externalId: "a@x.com" })).status).toBe(200);
  });

  it("should mint a session for an existing internal user", async () => {
    expect((await generateSession(sim, { deploymentId: 1, internalId: "analyst@acme.example" })).status).toBe(200);
  });

  it("should count a SCIM-provisioned user as an existing internal user", async () => {
    await http(sim).post("/api/scim/v2/Users").set("Authorization", `Bearer ${KEYS.unscoped}`).send({ userName: "new@acme.example" });
    expect((await generateSession(sim, { deploymentId: 1, internalId: "new@acme.example" })).status).toBe(200);
  });

  it("should reject an internalId whose user does not exist", async () => {
    const res = await generateSession(sim, { deploymentId: 1, internalId: "ghost@acme.example" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("internal user ghost@acme.example not found");
  });

  it.each([
    ["groups", ["Sales"]],
    ["userAttributes", [{ name: "region", value: "eu" }]],
    ["groupDefinitions", [{ name: "g" }]],
    ["userAttributeDefinitions", [{ name: "a", type: "string" }]],
    ["securityContext", { team: 1 }],
    ["userProfile", { displayName: "X" }],
    ["email", "a@x.com"],
  ])("should reject %s sent with internalId", async (field, value) => {
    const res = await generateSession(sim, { deploymentId: 1, internalId: "analyst@acme.example", [field]: value });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(`${field} is not allowed with internalId`);
  });

  it("should not create an external user for an internal-user session", async () => {
    await generateSession(sim, { deploymentId: 1, internalId: "analyst@acme.example" });
    expect(sim.state.snapshot().externalUserCount).toBe(0);
  });

  it("should reject a missing or non-numeric deploymentId", async () => {
    expect((await generateSession(sim, { externalId: "a" })).body.error).toBe("deploymentId is required and must be a number");
    expect((await generateSession(sim, { deploymentId: "1", externalId: "a" })).status).toBe(400);
  });

  it("should require Content-Type: application/json", async () => {
    const res = await http(sim)
      .post("/api/v1/embed/generate-session")
      .set("Authorization", `Api-Key ${KEYS.unscoped}`)
      .set("Content-Type", "text/plain")
      .send(JSON.stringify({ deploymentId: 1, externalId: "a" }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Content-Type: application/json is required");
  });

  it("should refuse generate-session on a plan other than premium or enterprise", async () => {
    await sim.close();
    sim = await startTestSimulator({ tenant: { name: "acme", plan: "team" } });
    expect((await generateSession(sim, { deploymentId: 1, externalId: "a" })).status).toBe(400);
    await sim.close();
    sim = await startTestSimulator({ tenant: { name: "acme", plan: "premium" } });
    expect((await generateSession(sim, { deploymentId: 1, externalId: "a" })).status).toBe(200);
  });
});

describe("POST /v1/embed/generate-session — embedTenantName", () => {
  const name = (embedTenantName: string) => generateSession(sim, { deploymentId: 1, externalId: "a", embedTenantName });

  it.each(["abcde", "a2345678901234567890123456789012345x", "team-7", "a0000"])("should accept %s", async (n) => {
    expect((await name(n)).status).toBe(200);
    expect(tenantState(sim, n).externalUsers.a).toBeDefined();
  });

  it.each([
    ["4 characters", "abcd"],
    ["37 characters", "a23456789012345678901234567890123456x"],
    ["upper case", "Abcde"],
    ["a leading digit", "1abcde"],
    ["a leading dash", "-abcde"],
    ["a trailing dash", "abcde-"],
    ["an underscore", "abc_de"],
  ])("should reject a name with %s", async (_why, n) => {
    const res = await name(n);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^embedTenantName must be lowercase, 5 to 36 characters/);
  });

  it("should default to the current tenant when omitted", async () => {
    await generateSession(sim, { deploymentId: 1, externalId: "a" });
    expect(tenantState(sim, "acme").externalUsers.a).toBeDefined();
  });
});

describe("POST /v1/embed/generate-session — creatorMode and settings", () => {
  it("should require the useCreatorMode tenant flag for creatorMode", async () => {
    await sim.close();
    sim = await startTestSimulator({ tenant: { name: "acme", useCreatorMode: false } });
    const res = await generateSession(sim, { deploymentId: 1, externalId: "a", creatorMode: true, embedTenantName: "tenant-one" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("creatorMode requires the useCreatorMode tenant flag");
  });

  it("should accept settings whose values are booleans (showDashboardChat)", async () => {
    expect((await generateSession(sim, { deploymentId: 1, externalId: "a", settings: { showDashboardChat: false } })).status).toBe(200);
  });

  it("should reject settings whose values are not booleans", async () => {
    const res = await generateSession(sim, { deploymentId: 1, externalId: "a", settings: { showDashboardChat: "yes" } });
    expect(res.body.error).toBe("settings.showDashboardChat must be a boolean");
  });

  it("should accept securityContext and embedTenantProfile and store the tenant's displayName", async () => {
    const res = await generateSession(sim, { deploymentId: 1, externalId: "a", embedTenantName: "tenant-one", securityContext: { team: 3 }, embedTenantProfile: { displayName: "Tenant One" } });
    expect(res.status).toBe(200);
    expect(tenantState(sim, "tenant-one").profile).toEqual({ displayName: "Tenant One" });
  });
});
