import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());
const api = () => request(s.app);
const U = "/scim/v2/acme/Users";

async function create(userName: string, extra: Record<string, unknown> = {}) {
  const res = await api().post(U).set(s.auth()).send(userBody(userName, extra));
  expect(res.status).toBe(201);
  return res;
}

describe("POST /scim/v2/:directoryId/Users", () => {
  it("should create the user with 201, Location, ETag and an absolute meta.location (O4 body)", async () => {
    const res = await api().post(U).set(s.auth()).set("User-Agent", "Okta SCIM Client 1.0.0").send({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "o4.user@okta.local",
      name: { givenName: "O", familyName: "Four" }, emails: [{ primary: true, value: "o4.user@okta.local", type: "work" }],
      displayName: "O Four", locale: "en-US", externalId: "00ujl29u0le5T6Aj10h7", groups: [], password: "1mz050nq", active: true,
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`https://bridge.example.com/scim/v2/acme/Users/${res.body.id}`);
    expect(res.headers.etag).toBe("W/\"1\"");
    expect(res.body).toMatchObject({
      userName: "o4.user@okta.local", externalId: "00ujl29u0le5T6Aj10h7", active: true, locale: "en-US",
      meta: { resourceType: "User", version: "W/\"1\"", location: res.headers.location },
    });
    expect(res.body.password).toBeUndefined();
    expect(res.body.meta.created).toBe(res.body.meta.lastModified);
  });

  it("should answer 409 uniqueness for a userName that differs only in case, and keep one user", async () => {
    await create("Case.Sensitive@example.com");
    expectScimError(await api().post(U).set(s.auth()).send(userBody("case.SENSITIVE@example.com")), 409, "uniqueness");
    const list = await api().get(`${U}?filter=userName eq "case.sensitive@example.com"`).set(s.auth());
    expect(list.body.totalResults).toBe(1);
  });

  it("should create two users with the same externalId (RFC 7643 §3.1: no uniqueness) and find both with externalId eq", async () => {
    const one = await create("ext.one", { externalId: "EXT-1" });
    const two = await create("ext.two", { externalId: "EXT-1" });
    const list = await api().get(`${U}?filter=externalId eq "EXT-1"`).set(s.auth());
    expect(list.status).toBe(200);
    expect(list.body.Resources.map((r: { id: string }) => r.id).sort()).toEqual([one.body.id, two.body.id].sort());
    // case-exact: another case is another value
    expect((await api().get(`${U}?filter=externalId eq "ext-1"`).set(s.auth())).body.totalResults).toBe(0);
    // an update that moves one of them away keeps the other findable, and the moved one under its new value
    const put = await api().put(`${U}/${one.body.id}`).set(s.auth()).send(userBody("ext.one", { externalId: "EXT-2" }));
    expect(put.status).toBe(200);
    expect((await api().get(`${U}?filter=externalId eq "EXT-1"`).set(s.auth())).body.Resources.map((r: { id: string }) => r.id)).toEqual([two.body.id]);
    expect((await api().get(`${U}?filter=externalId eq "EXT-2"`).set(s.auth())).body.Resources.map((r: { id: string }) => r.id)).toEqual([one.body.id]);
    expect((await api().delete(`${U}/${two.body.id}`).set(s.auth())).status).toBe(204);
    expect((await api().get(`${U}?filter=externalId eq "EXT-1"`).set(s.auth())).body.totalResults).toBe(0);
  });

  it("should create exactly one user when 50 identical POSTs race", async () => {
    const body = userBody("race.user@example.com");
    const results = await Promise.all(Array.from({ length: 50 }, () => api().post(U).set(s.auth()).send(body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((c) => c === 201)).toHaveLength(1);
    expect(statuses.filter((c) => c === 409)).toHaveLength(49);
    for (const r of results.filter((x) => x.status === 409)) expectScimError(r, 409, "uniqueness");
    expect((await api().get(`${U}?filter=userName eq "race.user@example.com"`).set(s.auth())).body.totalResults).toBe(1);
  });

  it("should keep the enterprise extension and accept any roles/x509Certificates type", async () => {
    const ent = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
    const res = await create("ent.user", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ent],
      [ent]: { employeeNumber: "42", department: "Retail", manager: { value: "m-1" } },
      roles: [{ value: "Admin", type: "WindowsAzureActiveDirectoryRole", primary: "False" }],
      x509Certificates: [{ value: "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA", type: "signing" }],
      emails: [{ value: "ent.user@example.com", type: "Work", primary: "True" }],
    });
    expect(res.body[ent]).toEqual({ employeeNumber: "42", department: "Retail", manager: { value: "m-1" } });
    expect(res.body.roles).toEqual([{ value: "Admin", type: "WindowsAzureActiveDirectoryRole", primary: false }]);
    expect(res.body.x509Certificates[0].type).toBe("signing");
    expect(res.body.emails[0]).toMatchObject({ type: "Work", primary: true });
  });

  it("should accept the enterprise manager as a bare string in a body (E6)", async () => {
    const ent = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
    const res = await create("mgr.string", { [ent]: { manager: "boss-id" } });
    expect(res.body[ent].manager).toEqual({ value: "boss-id" });
  });

  it("should refuse a body without userName with 400 and store nothing", async () => {
    const before = await s.users.count("acme");
    const { userName: _u, ...noName } = userBody("x");
    expectScimError(await api().post(U).set(s.auth()).send(noName), 400, "invalidValue");
    expect(await s.users.count("acme")).toBe(before);
  });

  it("should refuse a body that is not an object", async () => {
    expectScimError(await api().post(U).set(s.auth()).send([userBody("arr")]), 400, "invalidSyntax");
  });
});

describe("GET /scim/v2/:directoryId/Users/:id", () => {
  it("should return the user with its ETag, and 404 as a SCIM error for an unknown id", async () => {
    const { body } = await create("get.me");
    const res = await api().get(`${U}/${body.id}`).set(s.auth());
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe("W/\"1\"");
    expect(res.body).toEqual(body);
    expectScimError(await api().get(`${U}/00919288221112222`).set(s.auth()), 404);
  });

  it("should answer 304 to If-None-Match with the current version, 200 otherwise", async () => {
    const { body } = await create("etag.none.match");
    expect((await api().get(`${U}/${body.id}`).set(s.auth()).set("If-None-Match", "W/\"1\"")).status).toBe(304);
    expect((await api().get(`${U}/${body.id}`).set(s.auth()).set("If-None-Match", "W/\"7\"")).status).toBe(200);
  });
});

describe("PUT /scim/v2/:directoryId/Users/:id", () => {
  it("should replace the resource and bump meta.version (O5 full-object PUT)", async () => {
    const { body } = await create("put.user", { nickName: "Nick", title: "Old" });
    const res = await api().put(`${U}/${body.id}`).set(s.auth()).send(userBody("put.user", { title: "New" }));
    expect(res.status).toBe(200);
    expect(res.body.title).toBe("New");
    expect(res.body.nickName).toBeUndefined();
    expect(res.body.meta.version).toBe("W/\"2\"");
    expect(res.body.meta.created).toBe(body.meta.created);
    expect(res.headers.etag).toBe("W/\"2\"");
  });

  it("should answer 412 on a stale If-Match and change nothing", async () => {
    const { body } = await create("put.stale");
    await api().put(`${U}/${body.id}`).set(s.auth()).send(userBody("put.stale", { title: "v2" }));
    const res = await api().put(`${U}/${body.id}`).set(s.auth()).set("If-Match", "W/\"1\"").send(userBody("put.stale", { title: "v3" }));
    expectScimError(res, 412);
    expect((await api().get(`${U}/${body.id}`).set(s.auth())).body.title).toBe("v2");
    const ok = await api().put(`${U}/${body.id}`).set(s.auth()).set("If-Match", "W/\"2\"").send(userBody("put.stale", { title: "v3" }));
    expect(ok.status).toBe(200);
  });

  it("should answer 409 when a PUT takes another user's userName, and 404 for an unknown id", async () => {
    await create("taken.name");
    const { body } = await create("wants.name");
    expectScimError(await api().put(`${U}/${body.id}`).set(s.auth()).send(userBody("TAKEN.name")), 409, "uniqueness");
    expectScimError(await api().put(`${U}/nope`).set(s.auth()).send(userBody("whatever")), 404);
  });

  it("should let a user rename itself to another case of its own userName", async () => {
    const { body } = await create("rename.self");
    const res = await api().put(`${U}/${body.id}`).set(s.auth()).send(userBody("Rename.Self"));
    expect(res.status).toBe(200);
    expect(res.body.userName).toBe("Rename.Self");
  });
});

describe("DELETE /scim/v2/:directoryId/Users/:id", () => {
  it("should answer 204, then 404, and free the userName (E11 hard delete)", async () => {
    const { body } = await create("delete.me");
    expect((await api().delete(`${U}/${body.id}`).set(s.auth())).status).toBe(204);
    expectScimError(await api().delete(`${U}/${body.id}`).set(s.auth()), 404);
    expectScimError(await api().get(`${U}/${body.id}`).set(s.auth()), 404);
    await create("delete.me");
  });

  it("should answer 412 on a stale If-Match and keep the user", async () => {
    const { body } = await create("delete.stale");
    expectScimError(await api().delete(`${U}/${body.id}`).set(s.auth()).set("If-Match", "W/\"9\""), 412);
    expect((await api().get(`${U}/${body.id}`).set(s.auth())).status).toBe(200);
  });
});

describe("soft delete (E11)", () => {
  it("should keep a user with active=false readable and findable", async () => {
    const { body } = await create("soft.deleted@example.com");
    const patch = await api().patch(`${U}/${body.id}`).set(s.auth())
      .send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", value: { active: false } }] });
    expect(patch.status).toBe(200);
    expect((await api().get(`${U}/${body.id}`).set(s.auth())).body.active).toBe(false);
    const found = await api().get(`${U}?filter=userName eq "soft.deleted@example.com"`).set(s.auth());
    expect(found.body.Resources[0]).toMatchObject({ id: body.id, active: false });
    const inactive = await api().get(`${U}?filter=active eq false`).set(s.auth());
    expect(inactive.body.Resources.map((r: { id: string }) => r.id)).toContain(body.id);
  });
});

describe("PATCH /Users/:id answer", () => {
  it("should answer from the read it patched and the write's meta: the user as a GET then shows it, in one read", async () => {
    const { body } = await create("patch.answer@example.com");
    const g = await api().post("/scim/v2/acme/Groups").set(s.auth())
      .send({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Patch Answer", members: [{ value: body.id }] });
    expect(g.status).toBe(201);
    const reads = jest.spyOn(s.users, "get");
    try {
      const patch = await api().patch(`${U}/${body.id}`).set(s.auth())
        .send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", value: { title: "Lead", active: false } }] });
      expect(patch.status).toBe(200);
      expect(reads).toHaveBeenCalledTimes(1);
      const get = await api().get(`${U}/${body.id}`).set(s.auth());
      expect(patch.body).toEqual(get.body);
      expect(patch.headers.etag).toBe(get.headers.etag);
      expect(patch.body).toMatchObject({ title: "Lead", active: false, meta: { version: "W/\"2\"" } });
      expect(patch.body.groups).toEqual([expect.objectContaining({ value: g.body.id, display: "Patch Answer" })]);
      expect(patch.body.meta.lastModified >= body.meta.lastModified).toBe(true);
    } finally {
      reads.mockRestore();
    }
  });
});
