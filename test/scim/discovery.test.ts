import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";

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
});
