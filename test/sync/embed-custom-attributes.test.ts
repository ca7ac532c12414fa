/**
 * A declared extension attribute as a source of the embed attribute mapping: created with the user, changed
 * by an Entra PATCH (IDP-DIALECTS E20) together with other attributes, and seen as the external user's
 * `userAttributes` on the simulator over HTTP (real Redis, real BullMQ).
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";

const CORE = "urn:ietf:params:scim:schemas:core:2.0:User";
const CUSTOM = "urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User";
const TENANT = "em-tenant";

let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({
    em: {
      extensions: [{ urn: CUSTOM, attributes: [{ name: "CostCenterCode" }, { name: "Skills", multiValued: true }, { name: "Badge", type: "integer" }] }],
      embed: {
        tenantName: TENANT,
        attributeMapping: [
          { scim: `${CUSTOM}:CostCenterCode`, name: "costCenter", type: "string" },
          { scim: `${CUSTOM}:Skills`, name: "skills", type: "string_array" },
          { scim: `${CUSTOM}:Badge`, name: "badge", type: "number" },
        ],
      },
    },
  });
});
afterAll(async () => e.close());

async function attributesOf(externalId: string, expected: Record<string, unknown>): Promise<void> {
  await waitFor(async () => {
    const u = (await e.simState()).tenants[TENANT]?.externalUsers[externalId];
    return u && JSON.stringify(u.userAttributes) === JSON.stringify({ ...u.userAttributes, ...expected }) ? u : undefined;
  }, 15000, `${externalId} with ${JSON.stringify(expected)}`);
}

describe("declared extension attributes in the embed attribute mapping", () => {
  it("should send them as userAttributes, and send the change an Entra PATCH makes", async () => {
    const created = await e.scim("em").post("/Users", { schemas: [CORE, CUSTOM], userName: "cc.user@example.com", [CUSTOM]: { CostCenterCode: "CC-1", Skills: ["go"], Badge: 7 } });
    expect(created.status).toBe(201);
    await attributesOf("cc.user@example.com", { costCenter: "CC-1", skills: ["go"], badge: 7 });

    const patched = await e.scim("em").patch(`/Users/${created.body.id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [
      { op: "Replace", path: "displayName", value: "CC User" },
      { op: "Add", path: `${CUSTOM}:CostCenterCode`, value: "CC-2" },
      { op: "Add", path: `${CUSTOM}:Skills`, value: ["sql"] },
    ] });
    expect(patched.status).toBe(200);
    await attributesOf("cc.user@example.com", { costCenter: "CC-2", skills: ["go", "sql"], badge: 7 });
  });
});
