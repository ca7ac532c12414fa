/**
 * Contract tests of POST /v1/embed/generate-session: "Rules for `userProfile`" and "Rules for
 * `userAttributes`", plus the matching rows of "Errors".
 */
import type { RunningSimulator } from "../../src/simulator";
import { generateSession, startTestSimulator, tenantState } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());
const user = (id = "u@x.com", tenant = "acme") => tenantState(sim, tenant)?.externalUsers[id];
const session = (extra: object) => generateSession(sim, { deploymentId: 1, externalId: "u@x.com", ...extra });

describe("userProfile", () => {
  it("should store displayName and picture on the external user keyed by externalId (rule 1)", async () => {
    await session({ userProfile: { displayName: "Una", picture: "https://img.example/u.png" }, email: "u@x.com" });
    expect(user()).toMatchObject({ userProfile: { displayName: "Una", picture: "https://img.example/u.png" }, email: "u@x.com" });
  });

  it("should overwrite stored values when userProfile is sent again (rule 2)", async () => {
    await session({ userProfile: { displayName: "Una", picture: "https://img.example/u.png" } });
    await session({ userProfile: { displayName: "Una B", picture: "http://img.example/v.png" } });
    expect(user().userProfile).toEqual({ displayName: "Una B", picture: "http://img.example/v.png" });
  });

  it("should keep stored values when userProfile is omitted (rule 2)", async () => {
    await session({ userProfile: { displayName: "Una", picture: "https://img.example/u.png" } });
    await session({});
    expect(user().userProfile).toEqual({ displayName: "Una", picture: "https://img.example/u.png" });
  });

  it("should keep a stored property that a later userProfile omits (rule 2)", async () => {
    await session({ userProfile: { displayName: "Una", picture: "https://img.example/u.png" } });
    await session({ userProfile: { displayName: "Una C" } });
    expect(user().userProfile).toEqual({ displayName: "Una C", picture: "https://img.example/u.png" });
  });

  it.each(["/relative.png", "ftp://img.example/u.png", "img.example/u.png", "data:image/png;base64,AAAA", "https://"])(
    "should reject picture %s, which is not an absolute http(s) URL (rule 3)",
    async (picture) => {
      const res = await session({ userProfile: { picture } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("userProfile.picture must be an absolute http:// or https:// URL");
    },
  );

  it("should accept a picture URL that does not resolve, without fetching it (rule 3, 4, Errors: image fails to load)", async () => {
    const res = await session({ userProfile: { picture: "https://unreachable.invalid/never.webp" } });
    expect(res.status).toBe(200);
  });
});

describe("userAttributes", () => {
  it.each([
    ["region", "eu"],
    ["level", 3],
    ["regions", ["eu", "us"]],
    ["codes", [1, 2]],
    ["vip", true],
  ])("should store %s when the value matches its type (rule 1)", async (name, value) => {
    expect((await session({ userAttributes: [{ name, value }] })).status).toBe(200);
    expect(user().userAttributes[name]).toEqual(value);
  });

  it.each([
    ["region", 3],
    ["level", "3"],
    ["regions", [1]],
    ["codes", ["1"]],
    ["vip", "true"],
    ["region", { a: 1 }],
  ])("should reject %s = %j, whose type does not match (rule 1)", async (name, value) => {
    const res = await session({ userAttributes: [{ name, value }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(new RegExp(`^value of user attribute ${name} must match its type`));
  });

  it("should clear a value when null is sent (rule 1)", async () => {
    await session({ userAttributes: [{ name: "region", value: "eu" }, { name: "level", value: 2 }] });
    await session({ userAttributes: [{ name: "region", value: null }] });
    expect(user().userAttributes).toEqual({ level: 2 });
  });

  it("should reject duplicate names with 400 (rule 2, Errors row 4)", async () => {
    const res = await session({ userAttributes: [{ name: "region", value: "eu" }, { name: "region", value: "us" }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("duplicate name region in userAttributes");
  });

  it("should overwrite only the supplied names on a later call (rule 3)", async () => {
    await session({ userAttributes: [{ name: "region", value: "eu" }, { name: "level", value: 2 }] });
    await session({ userAttributes: [{ name: "level", value: 5 }] });
    expect(user().userAttributes).toEqual({ region: "eu", level: 5 });
  });

  it("should fail with User attributes not found for a name outside the tenant-wide catalog (rule 4, Errors row 6)", async () => {
    const res = await session({ userAttributes: [{ name: "region", value: "eu" }, { name: "shoeSize", value: "42" }] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "User attributes not found" });
    expect(user()).toBeUndefined();
  });

  it("should resolve names against the embed tenant's scoped catalog in creator mode (rule 5)", async () => {
    const base = { creatorMode: true, embedTenantName: "tenant-one" };
    // "region" exists tenant-wide, but not in the tenant's scope
    let res = await session({ ...base, userAttributes: [{ name: "region", value: "eu" }] });
    expect(res.body.error).toBe("User attributes not found");
    res = await session({ ...base, userAttributeDefinitions: [{ name: "team", type: "string" }], userAttributes: [{ name: "team", value: "blue" }] });
    expect(res.status).toBe(200);
    expect(user("u@x.com", "tenant-one").userAttributes).toEqual({ team: "blue" });
  });

  it("should not resolve scoped attributes without creator mode", async () => {
    await session({ creatorMode: true, embedTenantName: "tenant-one", userAttributeDefinitions: [{ name: "team", type: "string" }] });
    const res = await session({ embedTenantName: "tenant-one", userAttributes: [{ name: "team", value: "blue" }] });
    expect(res.body.error).toBe("User attributes not found");
  });

  it("should answer the configured status for User attributes not found", async () => {
    await sim.close();
    sim = await startTestSimulator({ statusCodes: { userAttributesNotFound: 422 } });
    expect((await session({ userAttributes: [{ name: "nope", value: "x" }] })).status).toBe(422);
  });
});
