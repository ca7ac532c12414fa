import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { userBody } from "../helpers/expect-scim";

let s: TestScim;
beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());

describe("concurrent PATCH on one user", () => {
  it("should keep every update when 12 PATCHes change different attributes at once", async () => {
    const id = (await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody("busy.user"))).body.id;
    const attrs = ["title", "nickName", "profileUrl", "userType", "preferredLanguage", "locale", "timezone", "displayName",
      "name.middleName", "name.honorificPrefix", "name.honorificSuffix", "name.formatted"];
    const results = await Promise.all(attrs.map((path, i) => request(s.app).patch(`/scim/v2/acme/Users/${id}`).set(s.auth())
      .send({ Operations: [{ op: "Add", path, value: path === "profileUrl" ? "https://x.example/p" : `v${i}` }] })));
    expect(results.map((r) => r.status)).toEqual(Array(attrs.length).fill(200));
    const final = (await request(s.app).get(`/scim/v2/acme/Users/${id}`).set(s.auth())).body;
    expect(final.meta.version).toBe(`W/"${attrs.length + 1}"`);
    expect(final.title).toBe("v0");
    expect(final.name.formatted).toBe("v11");
    expect(final.timezone).toBe("v6");
    expect(final.profileUrl).toBe("https://x.example/p");
  });
});
