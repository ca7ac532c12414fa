/**
 * `directories[].uniqueness.externalId: true` restores the strict rule: a second user or group with an
 * externalId the directory already has is refused with 409 uniqueness, and nothing is written. A directory
 * without the option (globex) accepts the same repeat.
 */
import request from "supertest";
import { hashToken } from "../../src/auth/token";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
const dir = (id: "acme" | "globex", extra: Record<string, unknown> = {}) => ({
  id, tokenHashes: [hashToken(TOKENS[id])], target: "workforce",
  platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" }, ...extra,
});
beforeAll(async () => {
  s = await startScim({ directories: [dir("acme", { uniqueness: { externalId: true } }), dir("globex")] });
});
afterAll(async () => s.close());
const api = () => request(s.app);

describe("uniqueness.externalId: true", () => {
  it("should refuse a second user with the same externalId with 409 uniqueness and store nothing", async () => {
    const first = await api().post("/scim/v2/acme/Users").set(s.auth()).send(userBody("strict.one", { externalId: "X-1" }));
    expect(first.status).toBe(201);
    const before = await s.users.count("acme");
    expectScimError(await api().post("/scim/v2/acme/Users").set(s.auth()).send(userBody("strict.two", { externalId: "X-1" })), 409, "uniqueness");
    expect(await s.users.count("acme")).toBe(before);
    // a PUT of the owner that keeps its externalId is no conflict with itself
    expect((await api().put(`/scim/v2/acme/Users/${first.body.id}`).set(s.auth()).send(userBody("strict.one", { externalId: "X-1", title: "t" }))).status).toBe(200);
    // another user may not take it by PUT either
    const other = await api().post("/scim/v2/acme/Users").set(s.auth()).send(userBody("strict.three", { externalId: "X-3" }));
    expectScimError(await api().put(`/scim/v2/acme/Users/${other.body.id}`).set(s.auth()).send(userBody("strict.three", { externalId: "X-1" })), 409, "uniqueness");
    expect((await api().get(`/scim/v2/acme/Users/${other.body.id}`).set(s.auth())).body.externalId).toBe("X-3");
  });

  it("should refuse a second group with the same externalId, but accept the same displayName", async () => {
    expect((await api().post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Strict G", externalId: "GX" })).status).toBe(201);
    expectScimError(await api().post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Other G", externalId: "GX" }), 409, "uniqueness");
    expect((await api().post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Strict G", externalId: "GY" })).status).toBe(201);
  });

  it("should leave a directory without the option accepting repeats", async () => {
    const g = s.auth("globex");
    expect((await api().post("/scim/v2/globex/Users").set(g).send(userBody("loose.one", { externalId: "X-1" }))).status).toBe(201);
    expect((await api().post("/scim/v2/globex/Users").set(g).send(userBody("loose.two", { externalId: "X-1" }))).status).toBe(201);
  });
});
