/**
 * `attributes` / `excludedAttributes` with value filters (issue 10 item 4): the attribute comes back with
 * only the matching values (or without them), on lists, searches and single resources; a bad filter
 * inside the list is 400 invalidFilter.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

let s: TestScim;
let userId: string;
let groupId: string;
const U = "/scim/v2/acme/Users";
const G = "/scim/v2/acme/Groups";
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

beforeAll(async () => {
  s = await startScim();
  const emails = [
    { value: "ada@work.example", type: "work", primary: true },
    { value: "ada@home.example", type: "home" },
    { value: "ada,lovelace@other.example", type: "other" },
  ];
  userId = (await request(s.app).post(U).set(s.auth()).send(userBody("ada@work.example", { emails, title: "Countess", [ENT]: { department: "Math" } })).expect(201)).body.id;
  const other = (await request(s.app).post(U).set(s.auth()).send(userBody("charles@work.example")).expect(201)).body.id;
  groupId = (await request(s.app).post(G).set(s.auth()).send({ displayName: "Engines", members: [{ value: userId }, { value: other }] }).expect(201)).body.id;
});
afterAll(async () => s.close());

const one = (query: Record<string, string>) => request(s.app).get(`${U}/${userId}`).query(query).set(s.auth());

describe("GET /Users/:id?attributes=attr[filter]", () => {
  it("should return the attribute with only the values the filter matches", async () => {
    const res = await one({ attributes: 'emails[type eq "work"]' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENT], id: userId,
      emails: [{ value: "ada@work.example", type: "work", primary: true }],
    });
  });

  it("should combine plain names and filtered ones, with commas inside quoted values", async () => {
    const res = await one({ attributes: 'userName,emails[value eq "ada,lovelace@other.example"]' });
    expect(res.body).toMatchObject({ userName: "ada@work.example", emails: [{ value: "ada,lovelace@other.example", type: "other" }] });
    expect(res.body.title).toBeUndefined();
  });

  it("should take a sub-attribute after the filter, and unquoted values", async () => {
    expect((await one({ attributes: "emails[type eq home].value" })).body.emails).toEqual([{ value: "ada@home.example" }]);
    const both = await one({ attributes: 'emails[type eq "home"],emails[type eq "work"].value' });
    expect(both.body.emails).toEqual([{ value: "ada@work.example" }, { value: "ada@home.example", type: "home" }]);
  });

  it("should omit the attribute when no value matches", async () => {
    const res = await one({ attributes: 'userName,emails[type eq "fax"]' });
    expect(res.body).toEqual({ schemas: expect.any(Array), id: userId, userName: "ada@work.example" });
  });

  it("should leave matching values out with excludedAttributes", async () => {
    const res = await one({ excludedAttributes: 'emails[type ne "work"],title' });
    expect(res.body.emails).toEqual([{ value: "ada@work.example", type: "work", primary: true }]);
    expect(res.body.title).toBeUndefined();
    expect(res.body[ENT]).toEqual({ department: "Math" });
    expect((await one({ excludedAttributes: "emails[type eq work].primary" })).body.emails[0]).toEqual({ value: "ada@work.example", type: "work" });
    expect((await one({ excludedAttributes: "emails[value pr]" })).body.emails).toBeUndefined();
  });

  it.each(['emails[type eq "work"', 'emails[type zz "work"]', "emails[]", "emails[type eq]"])("should answer %j with 400 invalidFilter", async (attributes) => {
    await expectUnchanged(s.redis, s.prefix, async () => {
      expectScimError(await one({ attributes }), 400, "invalidFilter");
    });
  });

  it("should refuse a value filter on a sub-attribute with 400 invalidValue", async () => {
    expectScimError(await one({ attributes: 'name.givenName[value eq "x"]' }), 400, "invalidValue");
  });
});

describe("attribute filters on lists and searches", () => {
  it("should apply to every resource of GET /Users and POST /Users/.search", async () => {
    const list = await request(s.app).get(U).query({ filter: `id eq "${userId}"`, attributes: 'emails[type eq "home"]' }).set(s.auth());
    expect(list.body.Resources).toEqual([{ schemas: expect.any(Array), id: userId, emails: [{ value: "ada@home.example", type: "home" }] }]);
    const search = await request(s.app).post(`${U}/.search`).set(s.auth()).send({ filter: 'userName sw "ada"', attributes: ['emails[type eq "work"].value', "userName"] });
    expect(search.body.Resources).toEqual([{ schemas: expect.any(Array), id: userId, userName: "ada@work.example", emails: [{ value: "ada@work.example" }] }]);
  });

  it("should return only the matching members of a group", async () => {
    const res = await request(s.app).get(`${G}/${groupId}`).query({ attributes: `members[value eq "${userId}"]` }).set(s.auth());
    expect(res.body.members).toEqual([expect.objectContaining({ value: userId, type: "User" })]);
    const without = await request(s.app).get(`${G}/${groupId}`).query({ excludedAttributes: `members[value eq "${userId}"]` }).set(s.auth());
    expect(without.body.members).toHaveLength(1);
    expect(without.body.members[0].value).not.toBe(userId);
  });
});
