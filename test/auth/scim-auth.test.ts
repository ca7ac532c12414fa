import request from "supertest";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { hashToken, presentedToken, tokenMatches } from "../../src/auth/token";

let s: TestScim;
beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());

describe("authentication on /scim/v2/:directoryId", () => {
  it("should answer 401 with WWW-Authenticate: Bearer and a SCIM body when the token is missing", async () => {
    const res = await request(s.app).get("/scim/v2/acme/Users");
    expectScimError(res, 401);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("should answer 401 for a wrong token", async () => {
    expectScimError(await request(s.app).get("/scim/v2/acme/Users").set("Authorization", "Bearer nope"), 401);
  });

  it("should accept the directory's own token with the Bearer scheme in any case", async () => {
    const res = await request(s.app).get("/scim/v2/acme/Users").set("Authorization", `bearer ${TOKENS.acme}`);
    expect(res.status).toBe(200);
  });

  it("should accept Okta's HTTP Header mode, the raw token without a scheme (O14)", async () => {
    const res = await request(s.app).get("/scim/v2/acme/Users").set("Authorization", TOKENS.acme);
    expect(res.status).toBe(200);
  });

  it("should refuse directory A's token on directory B, and tell nothing about B's data", async () => {
    const created = await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("only.globex"));
    expect(created.status).toBe(201);
    const byId = await request(s.app).get(`/scim/v2/globex/Users/${created.body.id}`).set(s.auth("acme"));
    const missing = await request(s.app).get("/scim/v2/globex/Users/does-not-exist").set(s.auth("acme"));
    expectScimError(byId, 401);
    expect(byId.body).toEqual(missing.body);
    const acmeView = await request(s.app).get("/scim/v2/acme/Users?filter=userName eq \"only.globex\"").set(s.auth("acme"));
    expect(acmeView.body.totalResults).toBe(0);
  });

  it("should answer an unknown directory exactly like a wrong token (no existence oracle)", async () => {
    const unknown = await request(s.app).get("/scim/v2/nope/Users").set(s.auth("acme"));
    const wrong = await request(s.app).get("/scim/v2/acme/Users").set("Authorization", "Bearer nope");
    expectScimError(unknown, 401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it("should authenticate before parsing the body: bad JSON and oversize bodies without a token get 401", async () => {
    const bad = await request(s.app).post("/scim/v2/acme/Users").set("Content-Type", "application/scim+json").send("{not json");
    expectScimError(bad, 401);
    const big = await request(s.app).post("/scim/v2/acme/Users").set("Content-Type", "application/scim+json")
      .send(JSON.stringify({ userName: "x".repeat(2 * 1024 * 1024) }));
    expectScimError(big, 401);
  });

  it("should protect the discovery endpoints too", async () => {
    expectScimError(await request(s.app).get("/scim/v2/acme/ServiceProviderConfig"), 401);
  });
});

describe("token helpers", () => {
  it("should compare against every configured hash", () => {
    const hashes = [hashToken("one"), hashToken("two")].map((h) => Buffer.from(h, "hex"));
    expect(tokenMatches("two", hashes)).toBe(true);
    expect(tokenMatches("three", hashes)).toBe(false);
    expect(tokenMatches(undefined, hashes)).toBe(false);
    expect(tokenMatches("one", [])).toBe(false);
  });

  it("should read Bearer and bare tokens, and nothing else", () => {
    expect(presentedToken("Bearer abc")).toBe("abc");
    expect(presentedToken("abc")).toBe("abc");
    expect(presentedToken("Basic dXNlcjpwYXNz x")).toBeUndefined();
    expect(presentedToken(undefined)).toBeUndefined();
  });
});
