/**
 * Embed target: the platform externalId comes from the directory's `embed.externalIdAttribute` (default
 * userName), trimmed and lower-cased — here a custom attribute: SCIM `externalId`, and the work email.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import type { SyncRecord } from "../../src/sync/state/sync-state";

const TENANT = "em-tenant";

function embedWith(externalIdAttribute: string): Record<string, unknown> {
  return { embed: { tenantName: TENANT, externalIdAttribute } };
}

async function settled(e: SyncEnv, id: string): Promise<SyncRecord> {
  return (await waitFor(async () => {
    const st = await e.state.get("em", "user", id);
    return st.status === "synced" || st.status === "failed" ? st : undefined;
  }, 10000, `user ${id} settled`))!;
}

describe("embed target: externalIdAttribute \"externalId\"", () => {
  let e: SyncEnv;
  beforeAll(async () => { e = await startSyncEnv({ sim: { externalIdPolicy: "reject" }, em: embedWith("externalId") }); });
  afterAll(async () => e.close());

  it("should use the SCIM externalId, trimmed and lower-cased, not the userName", async () => {
    const res = await e.scim("em").post("/Users", userBody("ext.user@example.com", { externalId: "  00U-ABC-123 " }));
    expect(res.status).toBe(201);
    expect(await settled(e, res.body.id)).toMatchObject({ status: "synced", externalId: "00u-abc-123" });
    const users = (await e.simState()).tenants[TENANT].externalUsers;
    expect(Object.keys(users)).toEqual(["00u-abc-123"]);
    expect(users["00u-abc-123"].email).toBe("ext.user@example.com");
  });

  it("should fail a user without that attribute with a message naming it, and call nothing", async () => {
    const before = (await e.simState()).counters.total.writes;
    const res = await e.scim("em").post("/Users", userBody("no.ext@example.com"));
    const st = await settled(e, res.body.id);
    expect(st.status).toBe("failed");
    expect(st.lastError).toMatch(/no value for externalId/);
    expect((await e.simState()).counters.total.writes).toBe(before);
  });
});

describe("embed target: externalIdAttribute emails[type eq \"work\"].value", () => {
  let e: SyncEnv;
  beforeAll(async () => { e = await startSyncEnv({ sim: { externalIdPolicy: "reject" }, em: embedWith('emails[type eq "work"].value') }); });
  afterAll(async () => e.close());

  it("should use the work email even when another email is primary", async () => {
    const res = await e.scim("em").post("/Users", userBody("login-name", {
      emails: [{ value: "Home@Example.com", type: "home", primary: true }, { value: " Ada.Work@Corp.Example ", type: "work" }],
    }));
    expect(res.status).toBe(201);
    expect(await settled(e, res.body.id)).toMatchObject({ status: "synced", externalId: "ada.work@corp.example" });
    const users = (await e.simState()).tenants[TENANT].externalUsers;
    expect(Object.keys(users)).toEqual(["ada.work@corp.example"]);
    // `email` stays the primary email
    expect(users["ada.work@corp.example"].email).toBe("Home@Example.com");
  });

  it("should move the user to the new externalId when the work email changes, clearing the old one", async () => {
    const res = await e.scim("em").post("/Users", userBody("mover", { emails: [{ value: "old@corp.example", type: "work", primary: true }] }));
    await settled(e, res.body.id);
    const g = await e.scim("em").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Movers", members: [{ value: res.body.id }] });
    expect(g.status).toBe(201);
    await waitFor(async () => (await e.simState()).tenants[TENANT].externalUsers["old@corp.example"]?.groups.includes("Movers"), 10000, "old user in group");
    await e.scim("em").put(`/Users/${res.body.id}`, userBody("mover", { emails: [{ value: "new@corp.example", type: "work", primary: true }] }));
    await waitFor(async () => (await e.state.get("em", "user", res.body.id)).externalId === "new@corp.example", 10000, "new externalId");
    const users = (await e.simState()).tenants[TENANT].externalUsers;
    expect(users["new@corp.example"].groups).toEqual(["Movers"]);
    expect(users["old@corp.example"].groups).toEqual([]);
  });
});
