/**
 * Small conformance points of the SCIM surface: every answer with a body says `application/scim+json`
 * with no parameter (RFC 7644 §8.1 registers none), the discovery endpoints refuse a `filter` with 403
 * (RFC 7644 §4), and `//` in a path (a base URL entered with a trailing slash) reaches its route.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
const D = "/scim/v2/acme";
let userId: string;
beforeAll(async () => {
  s = await startScim();
  userId = (await request(s.app).post(`${D}/Users`).set(s.auth()).send(userBody("media.type@example.com"))).body.id;
});
afterAll(async () => s.close());

const DISCOVERY = ["/ServiceProviderConfig", "/ResourceTypes", "/ResourceTypes/User", "/Schemas", "/Schemas/urn:ietf:params:scim:schemas:core:2.0:User"];

describe("Content-Type", () => {
  it("should be exactly application/scim+json on resources, lists, creates, errors and discovery", async () => {
    const answers = [
      await request(s.app).get(`${D}/Users/${userId}`).set(s.auth()),
      await request(s.app).get(`${D}/Users`).set(s.auth()),
      await request(s.app).post(`${D}/Users`).set(s.auth()).send(userBody("media.type.2@example.com")),
      await request(s.app).get(`${D}/Users/nobody`).set(s.auth()),
      await request(s.app).get(`${D}/Users`),
      await request(s.app).get(`${D}/Nowhere`).set(s.auth()),
      ...(await Promise.all(DISCOVERY.map((p) => request(s.app).get(`${D}${p}`).set(s.auth())))),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 201, 404, 401, 404, ...DISCOVERY.map(() => 200)]);
    for (const r of answers) expect(r.headers["content-type"]).toBe("application/scim+json");
    // the body is still UTF-8 JSON
    expect(answers[0].body.userName).toBe("media.type@example.com");
  });
});

describe("discovery endpoints given a filter", () => {
  it.each(DISCOVERY)("should answer %s?filter=… with 403", async (path) => {
    const res = await request(s.app).get(`${D}${path}?filter=${encodeURIComponent('id eq "User"')}`).set(s.auth());
    expectScimError(res, 403);
    expect((await request(s.app).get(`${D}${path}`).set(s.auth())).status).toBe(200);
  });
});

describe("paths with empty segments", () => {
  it("should route //Users, a base URL with a trailing slash, like /Users, and keep the query as sent", async () => {
    const list = await request(s.app).get(`${D}//Users?filter=${encodeURIComponent('userName eq "media.type@example.com"')}`).set(s.auth());
    expect(list.status).toBe(200);
    expect(list.body.Resources.map((r: { id: string }) => r.id)).toEqual([userId]);
    expect((await request(s.app).get(`/scim/v2//acme///Users/${userId}`).set(s.auth())).body.id).toBe(userId);
    const patched = await request(s.app).patch(`${D}//Users/${userId}`).set(s.auth())
      .send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "title", value: "a//b" }] });
    expect(patched.status).toBe(200);
    expect(patched.body.title).toBe("a//b");
  });
});
