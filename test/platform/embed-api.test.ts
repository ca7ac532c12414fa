/**
 * EmbedApi and DeploymentsApi against a real simulator over HTTP: generate-session with every field,
 * pre-flight refusals that never reach the network, cursor paging to the end, deletes, verifyKey.
 */
import { AuthError, ScopeError, ValidationError, createPlatformClient, type PlatformClient } from "../../src/platform";
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, startTestSimulator, tenantState } from "../helpers/simulator";

let sim: RunningSimulator;
let platform: PlatformClient;
beforeEach(async () => {
  sim = await startTestSimulator();
  platform = createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEYS.unscoped, deploymentId: 1, pageSize: 2 });
});
afterEach(async () => {
  await platform.close();
  await sim.close();
});
const calls = () => sim.state.snapshot().counters.total;

describe("EmbedApi.generateSession", () => {
  it("should send every field of the contract and return only the sessionId", async () => {
    const res = await platform.embed.generateSession({
      deploymentId: 1,
      externalId: "  Viewer@X.com ",
      email: "viewer@x.com",
      userProfile: { displayName: "Viewer", picture: "https://img.example/v.png" },
      embedTenantName: "tenant-one",
      creatorMode: true,
      userAttributeDefinitions: [{ name: "team", type: "string", displayName: "Team", defaultValue: "none", description: "d" }],
      groupDefinitions: [{ name: "Viewers", description: "read only" }],
      tenantGroupDefinitions: [{ name: "Ops" }],
      userAttributes: [{ name: "team", value: "blue" }],
      groups: ["Viewers"],
      tenantGroups: ["Ops"],
      securityContext: { team: "blue" },
      settings: { showDashboardChat: false },
      embedTenantProfile: { displayName: "Tenant One" },
    });
    expect(Object.keys(res)).toEqual(["sessionId"]);
    expect(tenantState(sim, "tenant-one").externalUsers["viewer@x.com"]).toMatchObject({ email: "viewer@x.com", groups: ["Viewers"], tenantGroups: ["Ops"], userAttributes: { team: "blue" } });
  });

  it.each([
    [{ deploymentId: 1 }, "exactly one of externalId / internalId is required"],
    [{ deploymentId: 1, internalId: "analyst@acme.example", groups: [] }, "groups is not allowed with internalId"],
    [{ deploymentId: 1, externalId: "a", embedTenantName: "Bad" }, /^embedTenantName must be lowercase, 5 to 36 characters/],
    [{ deploymentId: 1, externalId: "a", groupDefinitions: [{ name: "g" }], embedTenantName: "tenant-one" }, "groupDefinitions requires creatorMode: true"],
    [{ deploymentId: 1, externalId: "a", userAttributes: [{ name: "x", value: 1 }, { name: "x", value: 2 }] }, "duplicate name x in userAttributes"],
    [{ deploymentId: 1, externalId: "a", userProfile: { picture: "/a.png" } }, "userProfile.picture must be an absolute http:// or https:// URL"],
  ])("should refuse %j before the network", async (req, message) => {
    const err = await platform.embed.generateSession(req as never).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.preflight).toBe(true);
    expect(err.message).toEqual(typeof message === "string" ? message : expect.stringMatching(message));
    expect(calls()).toEqual({ reads: 0, writes: 0 });
  });

  it("should surface the platform's cannot change type as a ValidationError", async () => {
    const base = { deploymentId: 1, externalId: "a", creatorMode: true, embedTenantName: "tenant-one" };
    await platform.embed.generateSession({ ...base, userAttributeDefinitions: [{ name: "team", type: "string" }] });
    await expect(platform.embed.generateSession({ ...base, userAttributeDefinitions: [{ name: "team", type: "number" }] })).rejects.toMatchObject({ message: "cannot change type", status: 400 });
  });
});

describe("EmbedApi tenant admin", () => {
  const define = (names: string[]) =>
    platform.embed.generateSession({ deploymentId: 1, externalId: "a", creatorMode: true, embedTenantName: "tenant-one", groupDefinitions: names.map((name) => ({ name })) });

  it("should follow the cursor to the last page", async () => {
    await define(["g1", "g2", "g3", "g4", "g5"]);
    expect((await platform.embed.listGroups("tenant-one")).map((g) => g.name)).toEqual(["g1", "g2", "g3", "g4", "g5"]);
    expect(sim.state.snapshot().counters.endpoints["GET /v1/embed-tenants/:embedTenantName/groups"].reads).toBe(3);
  });

  it("should find a group id by name and delete it, then report it gone", async () => {
    await define(["g1", "g2", "g3"]);
    const g = await platform.embed.findGroupByName("tenant-one", "g3");
    expect(g).toMatchObject({ id: expect.any(Number), name: "g3" });
    expect(await platform.embed.deleteGroup("tenant-one", g!.id)).toBe(true);
    expect(await platform.embed.deleteGroup("tenant-one", g!.id)).toBe(false);
    expect(await platform.embed.findGroupByName("tenant-one", "g3")).toBeNull();
  });

  it("should delete the tenant", async () => {
    await define(["g1"]);
    expect(await platform.embed.deleteTenant("tenant-one")).toBe(true);
    expect(await platform.embed.listGroups("tenant-one")).toEqual([]);
    expect(await platform.embed.deleteTenant("tenant-one")).toBe(false);
  });
});

describe("DeploymentsApi.verifyKey", () => {
  it("should resolve with the deployment when the key covers it", async () => {
    expect(await platform.verifyKey()).toEqual({ id: 1, name: "production" });
  });

  it("should throw AuthError 'credential missing, malformed or expired' for a bad or expired key", async () => {
    for (const apiKey of ["not-a-key-000", KEYS.expired]) {
      const c = createPlatformClient({ baseUrl: sim.baseUrl, apiKey, deploymentId: 1 });
      const err = await c.verifyKey().catch((e) => e);
      await c.close();
      expect(err).toBeInstanceOf(AuthError);
      expect(err.message).toMatch(/^credential missing, malformed or expired/);
    }
  });

  it("should throw ScopeError 'key not scoped to deployment N' when the deployment is not covered", async () => {
    const c = createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEYS.scoped, deploymentId: 2 });
    await expect(c.verifyKey()).rejects.toMatchObject({ constructor: ScopeError, message: "key not scoped to deployment 2" });
    await c.close();
  });
});
