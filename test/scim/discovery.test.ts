import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

let s: TestScim;
beforeAll(async () => { s = await startScim({ scim: { maxResults: 150 } }); });
afterAll(async () => s.close());

describe("discovery endpoints", () => {
  it("should describe what is implemented in /ServiceProviderConfig", async () => {
    const res = await request(s.app).get("/scim/v2/acme/ServiceProviderConfig").set(s.auth());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      patch: { supported: true }, bulk: { supported: false }, filter: { supported: true, maxResults: 150 },
      changePassword: { supported: false }, sort: { supported: true }, etag: { supported: true },
      authenticationSchemes: [{ type: "oauthbearertoken" }],
      meta: { location: "https://bridge.example.com/scim/v2/acme/ServiceProviderConfig" },
    });
  });

  it("should list User (with the enterprise extension) and Group in /ResourceTypes", async () => {
    const res = await request(s.app).get("/scim/v2/acme/ResourceTypes").set(s.auth());
    const byId = Object.fromEntries(res.body.Resources.map((r: { id: string }) => [r.id, r]));
    expect(byId.User).toMatchObject({ endpoint: "/Users", schemaExtensions: [{ schema: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", required: false }] });
    expect(byId.Group).toMatchObject({ endpoint: "/Groups" });
  });

  it("should serve /Schemas with the core, enterprise and group schemas, locations per directory", async () => {
    const res = await request(s.app).get("/scim/v2/globex/Schemas").set(s.auth("globex"));
    const ids = res.body.Resources.map((r: { id: string }) => r.id);
    expect(ids).toEqual(expect.arrayContaining([
      "urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:core:2.0:Group",
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
    ]));
    expect(res.body.Resources[0].meta.location).toMatch(/^https:\/\/bridge\.example\.com\/scim\/v2\/globex\/Schemas\//);
  });

  it("should list canonicalValues User and Group for Group members.type, and the email types, without enforcing them", async () => {
    const group = await request(s.app).get("/scim/v2/acme/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group").set(s.auth());
    expect(group.status).toBe(200);
    const members = group.body.attributes.find((a: { name: string }) => a.name === "members");
    expect(members.subAttributes.find((a: { name: string }) => a.name === "type").canonicalValues).toEqual(["User", "Group"]);
    const user = await request(s.app).get("/scim/v2/acme/Schemas/urn:ietf:params:scim:schemas:core:2.0:User").set(s.auth());
    const emails = user.body.attributes.find((a: { name: string }) => a.name === "emails");
    expect(emails.subAttributes.find((a: { name: string }) => a.name === "type").canonicalValues).toEqual(expect.arrayContaining(["work", "home", "other"]));
    expect(user.body.meta).toEqual({ resourceType: "Schema", location: "https://bridge.example.com/scim/v2/acme/Schemas/urn:ietf:params:scim:schemas:core:2.0:User" });
    // [RFC7643§2.3.1] other values are accepted (Entra's "Work", E15)
    const created = await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send({ userName: "canon@example.com", emails: [{ value: "canon@example.com", type: "Work" }] });
    expect(created.status).toBe(201);
    expect(created.body.emails[0].type).toBe("Work");
  });

  it("should serve one resource type and one schema by id, and 404 for an unknown one", async () => {
    const rt = await request(s.app).get("/scim/v2/acme/ResourceTypes/Group").set(s.auth());
    expect(rt.body).toMatchObject({ id: "Group", name: "Group", endpoint: "/Groups", meta: { resourceType: "ResourceType", location: "https://bridge.example.com/scim/v2/acme/ResourceTypes/Group" } });
    expectScimError(await request(s.app).get("/scim/v2/acme/ResourceTypes/Device").set(s.auth()), 404);
    expectScimError(await request(s.app).get("/scim/v2/acme/Schemas/urn:example:nothing").set(s.auth()), 404);
  });
});

describe("paths a library default used to answer", () => {
  const LIBRARY_TEXT = /not implemented by resource|Endpoint Not (Found|Implemented)|egress|ingress|degress|Cannot |is not a function|reading '/;

  it("should answer /Me and /Bulk with our own 501, other methods on discovery endpoints with 405, and change nothing", async () => {
    const cases: Array<[string, string, number]> = [
      ["get", "/Me", 501], ["post", "/Me", 501], ["put", "/Me", 501], ["patch", "/Me", 501], ["delete", "/Me", 501], ["get", "/Me/x", 501],
      ["post", "/Bulk", 501], ["get", "/Bulk", 501],
      ["post", "/ServiceProviderConfig", 405], ["put", "/Schemas", 405], ["delete", "/Schemas/urn:ietf:params:scim:schemas:core:2.0:User", 405],
      ["patch", "/ResourceTypes/User", 405], ["put", "/", 405], ["delete", "/.search", 405],
      ["get", "/Frobnicate", 404], ["post", "/Users/x/y", 405], ["get", "/.search", 405],
    ];
    await expectUnchanged(s.redis, s.prefix, async () => {
      for (const [method, path, status] of cases) {
        const res = await request(s.app)[method as "get"](`/scim/v2/acme${path}`).set(s.auth()).set("Content-Type", "application/scim+json").send(method === "get" || method === "delete" ? undefined : "{}");
        if (res.status !== status) throw new Error(`${method.toUpperCase()} ${path}: ${res.status} ${res.text}`);
        expectScimError(res, status);
        expect(res.body.detail).not.toMatch(LIBRARY_TEXT);
      }
    });
  });
});
