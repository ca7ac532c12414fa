/**
 * Queries at the directory root (issue 10 item 5, [RFC7644§3.4.2.1] and §3.4.3): `POST /.search` and
 * `GET /` over Users and Groups together, with filter, paging, sorting and projection as on a resource
 * endpoint; users first, then groups, each in creation order.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

let s: TestScim;
const users: string[] = [];
const groups: string[] = [];
const SEARCH = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

beforeAll(async () => {
  s = await startScim();
  for (const n of ["ann", "ben", "cat"]) {
    users.push((await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody(`${n}@example.com`, { displayName: `Team ${n}`, externalId: `ext-${n}` })).expect(201)).body.id);
  }
  for (const n of ["Team alpha", "Staff"]) {
    groups.push((await request(s.app).post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: n, externalId: `ext-${n}`, members: [{ value: users[0] }] }).expect(201)).body.id);
  }
  // another directory's data never shows
  await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("team.globex@example.com", { displayName: "Team globex" })).expect(201);
});
afterAll(async () => s.close());

const search = (body: string | object) => request(s.app).post("/scim/v2/acme/.search").set(s.auth()).send(body);
const ids = (res: request.Response) => res.body.Resources.map((r: { id: string }) => r.id);

describe("POST /scim/v2/:directory/.search", () => {
  it("should list users and groups together, users first, in creation order", async () => {
    const res = await search({ schemas: [SEARCH] });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/application\/scim\+json/);
    expect(res.body).toMatchObject({ schemas: [LIST], totalResults: 5, startIndex: 1, itemsPerPage: 5 });
    expect(ids(res)).toEqual([...users, ...groups]);
    expect(res.body.Resources.map((r: { meta: { resourceType: string } }) => r.meta.resourceType)).toEqual(["User", "User", "User", "Group", "Group"]);
  });

  it("should filter on an attribute both types have, and on one only one type has (the other has no value)", async () => {
    expect(ids(await search({ filter: 'displayName sw "team"' }))).toEqual([...users, groups[0]]);
    expect(ids(await search({ filter: "externalId eq ext-Staff" }))).toEqual([groups[1]]);
    expect(ids(await search({ filter: 'userName eq "BEN@example.com"' }))).toEqual([users[1]]);
    expect(ids(await search({ filter: `members.value eq "${users[0]}"` }))).toEqual(groups);
    expect(ids(await search({ filter: 'userName pr or displayName eq "Staff"' }))).toEqual([...users, groups[1]]);
  });

  it("should page across the boundary between users and groups with the right totalResults", async () => {
    const page = await search({ startIndex: 3, count: 2 });
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 3, itemsPerPage: 2 });
    expect(ids(page)).toEqual([users[2], groups[0]]);
    const filtered = await search({ filter: 'displayName sw "team"', startIndex: 4, count: 10 });
    expect(filtered.body).toMatchObject({ totalResults: 4, itemsPerPage: 1 });
    expect(ids(filtered)).toEqual([groups[0]]);
  });

  it("should sort both types by one attribute and apply attributes to each", async () => {
    const res = await search({ sortBy: "displayName", sortOrder: "descending", attributes: ["displayName"] });
    expect(res.body.Resources.map((r: { displayName: string }) => r.displayName)).toEqual(["Team cat", "Team ben", "Team ann", "Team alpha", "Staff"]);
    expect(Object.keys(res.body.Resources[0]).sort()).toEqual(["displayName", "id", "schemas"]);
    const noMembers = await search({ filter: 'displayName eq "Staff"', excludedAttributes: "members" });
    expect(noMembers.body.Resources[0].members).toBeUndefined();
    expect((await search({ filter: 'displayName eq "Staff"' })).body.Resources[0].members).toHaveLength(1);
  });

  it("should answer 400 invalidFilter for an attribute neither type has, and for a bad filter, changing nothing", async () => {
    await expectUnchanged(s.redis, s.prefix, async () => {
      for (const filter of ['frobnicate eq "x"', "userName eq", "(displayName pr"]) expectScimError(await search({ filter }), 400, "invalidFilter");
      expectScimError(await search([1, 2]), 400, "invalidSyntax");
      expectScimError(await search({ schemas: ["urn:example:wrong"] }), 400, "invalidSyntax");
    });
  });
});

describe("GET /scim/v2/:directory/?filter=…", () => {
  it("should answer the same as POST /.search", async () => {
    const get = await request(s.app).get("/scim/v2/acme/").query({ filter: 'displayName co "a"', count: 3 }).set(s.auth());
    const post = await search({ filter: 'displayName co "a"', count: 3 });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(post.body);
    expect((await request(s.app).get("/scim/v2/acme").set(s.auth())).body.totalResults).toBe(5);
  });
});
