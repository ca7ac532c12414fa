import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
const U = "/scim/v2/acme/Users";
const created: string[] = [];

beforeAll(async () => {
  s = await startScim({ scim: { maxResults: 10, defaultCount: 5 } });
  for (let i = 0; i < 23; i++) {
    const r = await request(s.app).post(U).set(s.auth()).send(userBody(`page.${String(i).padStart(2, "0")}`, { title: `T${(i * 7) % 23}` }));
    created.push(r.body.id);
  }
});
afterAll(async () => s.close());

const get = (q: Record<string, string | number>) => request(s.app).get(U).query(q).set(s.auth());

describe("GET /Users paging", () => {
  it("should walk every page in a stable order with correct totalResults and itemsPerPage (O7)", async () => {
    const seen: string[] = [];
    for (let start = 1; start <= 23; start += 10) {
      const res = await get({ startIndex: start, count: 10 });
      expect(res.body).toMatchObject({ totalResults: 23, startIndex: start, itemsPerPage: Math.min(10, 23 - start + 1) });
      seen.push(...res.body.Resources.map((r: { id: string }) => r.id));
    }
    expect(seen).toEqual(created);
  });

  it("should use the configured default count and cap count at maxResults", async () => {
    expect((await get({})).body.itemsPerPage).toBe(5);
    const capped = await get({ count: 1000000 });
    expect(capped.body).toMatchObject({ totalResults: 23, itemsPerPage: 10 });
  });

  it("should treat startIndex < 1 as 1 and a negative count as 0 (RFC 7644 §3.4.2.4)", async () => {
    expect((await get({ startIndex: -5, count: 2 })).body).toMatchObject({ startIndex: 1, itemsPerPage: 2 });
    expect((await get({ count: -3 })).body).toMatchObject({ totalResults: 23, itemsPerPage: 0, Resources: [] });
  });

  it("should return an empty page past the end, and 400 for non-numeric paging values", async () => {
    expect((await get({ startIndex: 999999999999, count: 5 })).body).toMatchObject({ totalResults: 23, itemsPerPage: 0 });
    expectScimError(await get({ count: "ten" }), 400, "invalidValue");
    expectScimError(await get({ startIndex: "1e3" }), 400, "invalidValue");
  });

  it("should answer Okta's probe GET /Users?startIndex=1&count=2 (O2)", async () => {
    expect((await get({ startIndex: 1, count: 2 })).body).toMatchObject({ totalResults: 23, itemsPerPage: 2 });
  });

  it("should page a filtered result", async () => {
    const res = await get({ filter: 'userName sw "page.1"', startIndex: 3, count: 4 });
    expect(res.body.totalResults).toBe(10);
    expect(res.body.Resources.map((r: { userName: string }) => r.userName)).toEqual(["page.12", "page.13", "page.14", "page.15"]);
  });
});

describe("GET /Users sorting", () => {
  it("should sort by an attribute, ascending and descending, before paging", async () => {
    const asc = await get({ sortBy: "title", count: 3 });
    expect(asc.body.Resources.map((r: { title: string }) => r.title)).toEqual(["T0", "T1", "T10"]);
    const desc = await get({ sortBy: "title", sortOrder: "descending", count: 3 });
    expect(desc.body.Resources.map((r: { title: string }) => r.title)).toEqual(["T9", "T8", "T7"]);
    expectScimError(await get({ sortBy: "title", sortOrder: "sideways" }), 400, "invalidValue");
  });
});

describe("attributes / excludedAttributes", () => {
  it("should return only the named attributes plus schemas and id", async () => {
    const res = await get({ attributes: "userName,name.givenName", count: 1 });
    expect(res.body.Resources[0]).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], id: created[0], userName: "page.00", name: { givenName: "Given" },
    });
  });

  it("should drop excluded attributes but never schemas and id", async () => {
    const res = await get({ excludedAttributes: "emails,meta,id,schemas,name.familyName", count: 1 });
    const r = res.body.Resources[0];
    expect(r.emails).toBeUndefined();
    expect(r.meta).toBeUndefined();
    expect(r.name).toEqual({ givenName: "Given" });
    expect(r.id).toBe(created[0]);
    expect(r.schemas).toBeDefined();
  });

  it("should apply attributes on a single resource too", async () => {
    const res = await request(s.app).get(`${U}/${created[1]}?attributes=userName`).set(s.auth());
    expect(res.body).toEqual({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], id: created[1], userName: "page.01" });
  });
});

describe("POST /Users/.search", () => {
  it("should run a SearchRequest with filter, paging and attributes", async () => {
    const res = await request(s.app).post(`${U}/.search`).set(s.auth()).send({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
      filter: 'userName sw "page.2"', startIndex: 1, count: 2, attributes: ["userName"], sortBy: "userName", sortOrder: "descending",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totalResults: 3, itemsPerPage: 2, Resources: [{ userName: "page.22" }, { userName: "page.21" }] });
    expect(res.body.Resources[0].emails).toBeUndefined();
  });

  it("should refuse a SearchRequest with the wrong schema", async () => {
    expectScimError(await request(s.app).post(`${U}/.search`).set(s.auth()).send({ schemas: ["urn:nope"], filter: "userName pr" }), 400, "invalidSyntax");
  });
});
