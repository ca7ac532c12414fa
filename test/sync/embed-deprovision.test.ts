/**
 * Embed target, deprovisioning: IdP deactivation (active=false) and DELETE send `groups: []` and null for
 * every mapped attribute, and mark the user `deprovisioned` (the contract has no delete of an external
 * user). A user the bridge never provisioned makes no call at all: a call would create the external user.
 */
import { EmbedApi } from "../../src/platform/embed-api";
import type { GenerateSessionRequest } from "../../src/platform";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";

const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const TENANT = "em-tenant";
const SESSION = "POST /v1/embed/generate-session";

let e: SyncEnv;
let sent: GenerateSessionRequest[] = [];
const origGenerate = EmbedApi.prototype.generateSession;
const spy = jest.spyOn(EmbedApi.prototype, "generateSession").mockImplementation(function (this: EmbedApi, req: GenerateSessionRequest) {
  sent.push(JSON.parse(JSON.stringify(req)) as GenerateSessionRequest);
  return origGenerate.call(this, req);
});

beforeAll(async () => { e = await startSyncEnv(); });
beforeEach(() => { sent = []; });
afterAll(async () => {
  spy.mockRestore();
  await e.close();
});

const sessionWrites = async () => (await e.simState()).counters.endpoints[SESSION]?.writes ?? 0;
const externalUser = async (externalId: string) => (await e.simState()).tenants[TENANT]?.externalUsers[externalId];
const status = (id: string) => async () => (await e.state.get("em", "user", id)).status;

/** A user with both mapped attributes, in group "Deprov Group", synced. */
async function provisioned(userName: string): Promise<string> {
  const res = await e.scim("em").post("/Users", userBody(userName, {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENT], [ENT]: { department: "Ops", employeeNumber: "7" },
  }));
  expect(res.status).toBe(201);
  const g = await e.scim("em").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `Group of ${userName}`, members: [{ value: res.body.id }] });
  expect(g.status).toBe(201);
  const u = await waitFor(async () => {
    const x = await externalUser(userName);
    return x?.groups.length ? x : undefined;
  }, 10000, "provisioned with its group");
  expect(u).toMatchObject({ groups: [`Group of ${userName}`], userAttributes: { department: "Ops", employeeNumber: 7 } });
  return res.body.id as string;
}

function expectDeprovisionRequest(externalId: string): void {
  const req = sent.filter((r) => r.externalId === externalId).pop();
  expect(req).toMatchObject({
    externalId, embedTenantName: TENANT, creatorMode: true, groups: [],
    userAttributes: [{ name: "department", value: null }, { name: "employeeNumber", value: null }],
  });
}

describe("embed target: deprovisioning", () => {
  it("should clear groups and null the mapped attributes on an IdP deactivation (active=false), and mark the user deprovisioned", async () => {
    const id = await provisioned("deact.user");
    await e.scim("em").patch(`/Users/${id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", value: { active: false } }] });
    await waitFor(async () => (await status(id)()) === "deprovisioned", 10000, "deprovisioned");
    expect(await externalUser("deact.user")).toMatchObject({ groups: [], userAttributes: {} });
    expectDeprovisionRequest("deact.user");
  });

  it("should do the same on an IdP DELETE", async () => {
    const id = await provisioned("deleted.user");
    expect((await e.scim("em").delete(`/Users/${id}`)).status).toBe(204);
    await waitFor(async () => (await status(id)()) === "deprovisioned", 10000, "deprovisioned");
    expect(await externalUser("deleted.user")).toMatchObject({ groups: [], userAttributes: {} });
    expectDeprovisionRequest("deleted.user");
  });

  it("should provision a deactivated user again when the IdP reactivates it", async () => {
    const id = await provisioned("react.user");
    const patch = (active: boolean) => e.scim("em").patch(`/Users/${id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: active }] });
    await patch(false);
    await waitFor(async () => (await status(id)()) === "deprovisioned", 10000, "deprovisioned");
    await patch(true);
    await waitFor(async () => (await status(id)()) === "synced", 10000, "synced again");
    expect(await externalUser("react.user")).toMatchObject({ groups: ["Group of react.user"], userAttributes: { department: "Ops", employeeNumber: 7 } });
  });

  it("should make no call for a user created deactivated, then deleted, that was never provisioned", async () => {
    const before = await sessionWrites();
    const res = await e.scim("em").post("/Users", userBody("never.user", { active: false }));
    expect(res.status).toBe(201);
    await waitFor(async () => (await status(res.body.id)()) === "deprovisioned", 10000, "deprovisioned");
    expect((await e.scim("em").delete(`/Users/${res.body.id}`)).status).toBe(204);
    await waitIdle(e, "em");
    expect(await sessionWrites()).toBe(before);
    expect(sent.filter((r) => r.externalId === "never.user")).toEqual([]);
    expect(await externalUser("never.user")).toBeUndefined();
    expect(await status(res.body.id)()).toBe("deprovisioned");
  });
});
