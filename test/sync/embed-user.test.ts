/**
 * Embed target, users (issue 4 item 4): each mapping rule of the generate-session request, observed on the
 * simulator over HTTP and on the requests the runtime sent (a spy on EmbedApi.generateSession).
 */
import { randomUUID } from "node:crypto";
import { EmbedApi } from "../../src/platform/embed-api";
import type { GenerateSessionRequest } from "../../src/platform";
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { waitReconcileJobs } from "../helpers/sync-wait";

const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const TENANT = "em-tenant";

let e: SyncEnv;
/** Every generate-session request the runtime made in the current test, and in the whole suite. */
let sent: GenerateSessionRequest[] = [];
const allSent: GenerateSessionRequest[] = [];
const origGenerate = EmbedApi.prototype.generateSession;
const spy = jest.spyOn(EmbedApi.prototype, "generateSession").mockImplementation(function (this: EmbedApi, req: GenerateSessionRequest) {
  const copy = JSON.parse(JSON.stringify(req)) as GenerateSessionRequest;
  sent.push(copy);
  allSent.push(copy);
  return origGenerate.call(this, req);
});

beforeAll(async () => {
  e = await startSyncEnv({
    // the bridge must send externalId already trimmed and lower-cased: a simulator that rejects anything else proves it
    sim: { externalIdPolicy: "reject" },
    em: {
      embed: {
        tenantName: TENANT,
        attributeMapping: [
          { scim: `${ENT}:department`, name: "department", type: "string" },
          { scim: `${ENT}:employeeNumber`, name: "employeeNumber", type: "number" },
          { scim: "userType", name: "isContractor", type: "boolean" },
          { scim: "emails.value", name: "allEmails", type: "string_array" },
          { scim: "phoneNumbers.value", name: "extensions", type: "number_array" },
          { scim: "preferredLanguage", name: "language", type: "string", displayName: "Language", description: "IdP preferredLanguage" },
        ],
        groupNameMapping: { "Okta Sales": "sales-team" },
        groupFilter: "^(Okta|App) ",
      },
    },
  });
});
beforeEach(() => { sent = []; });
afterAll(async () => {
  spy.mockRestore();
  await e.close();
});
async function createUser(body: Record<string, unknown>): Promise<string> {
  const res = await e.scim("em").post("/Users", body);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function synced(id: string, hash?: string): Promise<void> {
  await waitFor(async () => {
    const st = await e.state.get("em", "user", id);
    return st.status === "synced" && (hash === undefined || st.hash !== hash);
  }, 10000, `user ${id} synced`);
}

async function externalUser(externalId: string) {
  return (await e.simState()).tenants[TENANT]?.externalUsers[externalId];
}

describe("embed target: externalId, email and userProfile", () => {
  it("should use userName, trimmed and lower-cased, as externalId, and the primary email as email", async () => {
    const id = await createUser(userBody("  Mixed.Case@Example.COM ", {
      emails: [{ value: "other@example.com", type: "home" }, { value: "Primary@Example.com", type: "work", primary: true }],
    }));
    await synced(id);
    expect(await e.state.get("em", "user", id)).toMatchObject({ externalId: "mixed.case@example.com", status: "synced" });
    expect(await externalUser("mixed.case@example.com")).toMatchObject({ externalId: "mixed.case@example.com", email: "Primary@Example.com" });
    expect(sent[0]).toMatchObject({ externalId: "mixed.case@example.com", email: "Primary@Example.com", creatorMode: true, embedTenantName: TENANT, deploymentId: 1 });
  });

  it("should send userProfile.displayName from displayName when there is one", async () => {
    const id = await createUser(userBody("dn.display", { displayName: "Display Name", name: { formatted: "Formatted Name", givenName: "G", familyName: "F" } }));
    await synced(id);
    expect((await externalUser("dn.display"))?.userProfile).toEqual({ displayName: "Display Name" });
  });

  it("should fall back to name.formatted when there is no displayName", async () => {
    const id = await createUser(userBody("dn.formatted", { name: { formatted: "Formatted Name", givenName: "G", familyName: "F" } }));
    await synced(id);
    expect((await externalUser("dn.formatted"))?.userProfile).toEqual({ displayName: "Formatted Name" });
  });

  it("should fall back to givenName and familyName when there is neither displayName nor name.formatted", async () => {
    const id = await createUser(userBody("dn.parts", { name: { givenName: "Ada", familyName: "Lovelace" } }));
    await synced(id);
    expect((await externalUser("dn.parts"))?.userProfile).toEqual({ displayName: "Ada Lovelace" });
  });

  it("should send picture from photos when it is an absolute https URL", async () => {
    const id = await createUser(userBody("pic.https", { photos: [{ value: "https://img.example.com/ada.png", type: "photo" }] }));
    await synced(id);
    expect((await externalUser("pic.https"))?.userProfile).toMatchObject({ picture: "https://img.example.com/ada.png" });
  });

  it("should leave picture out when the photo is an ftp URL (and still provision the user)", async () => {
    const id = await createUser(userBody("pic.ftp", { displayName: "No Picture", photos: [{ value: "ftp://img.example.com/ada.png", type: "photo" }] }));
    await synced(id);
    expect((await externalUser("pic.ftp"))?.userProfile).toEqual({ displayName: "No Picture" });
    expect(sent.find((r) => r.externalId === "pic.ftp")?.userProfile).toEqual({ displayName: "No Picture" });
  });

  // The SCIM layer refuses a data: or relative photo (SCIMMY: "expected value type 'reference' to refer to one of:
  // 'external'"), so these bodies are written to the store directly, as an older bridge or a store import could have.
  it.each([
    ["a data: URI", "pic.data", "data:image/png;base64,iVBORw0KGgo="],
    ["a relative URL", "pic.relative", "/images/ada.png"],
  ])("should leave picture out when the stored photo is %s (and still provision the user)", async (_what, userName, photo) => {
    const id = randomUUID();
    await e.users.write("em", id, userBody(userName, { displayName: "No Picture", photos: [{ value: photo, type: "photo" }] }), "create");
    await synced(id);
    expect((await externalUser(userName))?.userProfile).toEqual({ displayName: "No Picture" });
    expect(sent.find((r) => r.externalId === userName)?.userProfile).toEqual({ displayName: "No Picture" });
  });

  it("should take the first http(s) photo when the primary one is not an http(s) URL", async () => {
    const id = await createUser(userBody("pic.second", {
      photos: [{ value: "ftp://img.example.com/thumb.png", type: "thumbnail", primary: true }, { value: "http://img.example.com/ada.png", type: "photo" }],
    }));
    await synced(id);
    expect((await externalUser("pic.second"))?.userProfile).toMatchObject({ picture: "http://img.example.com/ada.png" });
  });
});

describe("embed target: groups", () => {
  it("should send the user's IdP groups mapped to embed-tenant names, leaving out groups the filter excludes", async () => {
    const id = await createUser(userBody("grouped.user"));
    await synced(id);
    for (const displayName of ["Okta Sales", "App Viewers", "Other Team"]) {
      const g = await e.scim("em").post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName, members: [{ value: id }] });
      expect(g.status).toBe(201);
    }
    const u = await waitFor(async () => {
      const x = await externalUser("grouped.user");
      return x?.groups.length === 2 ? x : undefined;
    }, 10000, "groups applied");
    expect([...u!.groups].sort()).toEqual(["App Viewers", "sales-team"]);
    const tenant = (await e.simState()).tenants[TENANT];
    const names = tenant.groups.map((g) => g.name);
    expect(names).toEqual(expect.arrayContaining(["App Viewers", "sales-team"]));
    expect(names).not.toContain("Other Team");
    expect(names).not.toContain("Okta Sales");
    // the definitions travel with the names that use them
    const last = sent.filter((r) => r.externalId === "grouped.user").pop()!;
    expect(last.groups).toEqual(["App Viewers", "sales-team"]);
    expect(last.groupDefinitions).toEqual([{ name: "App Viewers" }, { name: "sales-team" }]);
  });
});

describe("embed target: userAttributes", () => {
  it("should coerce each mapped attribute to its type and send null for a missing one", async () => {
    const id = await createUser(userBody("attrs.user", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENT],
      [ENT]: { department: "Retail", employeeNumber: "42" },
      userType: "True",
      emails: [{ value: "attrs.user@example.com", type: "work", primary: true }, { value: "attrs.home@example.com", type: "home" }],
      phoneNumbers: [{ value: "101", type: "work" }, { value: "202", type: "mobile" }],
    }));
    await synced(id);
    const req = sent.find((r) => r.externalId === "attrs.user")!;
    expect(req.userAttributes).toEqual([
      { name: "department", value: "Retail" },
      { name: "employeeNumber", value: 42 },
      { name: "isContractor", value: true },
      { name: "allEmails", value: ["attrs.user@example.com", "attrs.home@example.com"] },
      { name: "extensions", value: [101, 202] },
      { name: "language", value: null },
    ]);
    expect((await externalUser("attrs.user"))?.userAttributes).toEqual({
      department: "Retail", employeeNumber: 42, isContractor: true, allEmails: ["attrs.user@example.com", "attrs.home@example.com"], extensions: [101, 202],
    });
  });

  it("should send the definitions of every attribute it sends, so the tenant never answers `User attributes not found`", async () => {
    // a fresh tenant-scoped catalog is only ever filled by the requests themselves: every request carries the
    // definitions of the attributes and groups it names
    expect(allSent.length).toBeGreaterThan(10);
    for (const r of allSent) {
      expect(r.userAttributeDefinitions?.map((d) => d.name)).toEqual(r.userAttributes?.map((a) => a.name));
      expect(r.groupDefinitions?.map((d) => d.name)).toEqual(r.groups);
    }
    const defs = (await e.simState()).tenants[TENANT].attributeDefinitions;
    expect(defs.map((d) => [d.name, d.type]).sort()).toEqual([
      ["allEmails", "string_array"], ["department", "string"], ["employeeNumber", "number"], ["extensions", "number_array"],
      ["isContractor", "boolean"], ["language", "string"],
    ]);
    expect(defs.find((d) => d.name === "language")).toMatchObject({ displayName: "Language", description: "IdP preferredLanguage" });
    expect(await e.state.counts("em")).toMatchObject({ failed: 0 });
  });

  it("should update a changed attribute with one more call and none when nothing changed", async () => {
    const id = await createUser(userBody("attrs.update", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENT], [ENT]: { department: "A" } }));
    await synced(id);
    const before = (await e.state.get("em", "user", id)).hash;
    await e.scim("em").patch(`/Users/${id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: `${ENT}:department`, value: "B" }] });
    await synced(id, before);
    expect((await externalUser("attrs.update"))?.userAttributes).toMatchObject({ department: "B" });
    // one more reconcile with nothing changed: it completes "unchanged" without a call
    const runs = (await waitReconcileJobs(e, "em", "user", id, 2)).length;
    const calls = sent.length;
    await e.runtime!.queues.enqueue("em", "user", id);
    const [latest] = (await waitReconcileJobs(e, "em", "user", id, runs + 1)).sort((a, b) => b.timestamp - a.timestamp);
    expect(latest.returnvalue).toBe("unchanged");
    expect(sent.length).toBe(calls);
  });
});
