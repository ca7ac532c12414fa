/**
 * Bad list and search parameters: paging numbers, pathological filters, unknown attributes, sort and
 * projection parameters. Never a 5xx; refusals are SCIM 400 bodies; the store never changes.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

let s: TestScim;
let wide: TestScim;
const U = "/scim/v2/acme/Users";
const G = "/scim/v2/acme/Groups";

beforeAll(async () => {
  s = await startScim();
  // a deployment that raised the filter length limit must still be safe from deep or long filters
  wide = await startScim({ scim: { maxFilterLength: 1_000_000, maxFilterTerms: 1_000_000 }, server: { bodyLimitBytes: 4 * 1024 * 1024, publicBaseUrl: "https://bridge.example.com" } });
  for (const t of [s, wide]) {
    for (let i = 0; i < 3; i++) await request(t.app).post(U).set(t.auth()).send(userBody(`user${i}@example.com`, { title: `T${i}` })).expect(201);
    await request(t.app).post(G).set(t.auth()).send({ displayName: "Everyone" }).expect(201);
  }
});
afterAll(async () => { await s.close(); await wide.close(); });

/** GET with `query` and POST /.search with the same parameters, on Users and Groups, store unchanged. */
async function both(t: TestScim, params: Record<string, unknown>, check: (res: request.Response, how: string) => void): Promise<void> {
  await expectUnchanged(t.redis, t.prefix, async () => {
    for (const base of [U, G]) {
      const query = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
      const url = new URLSearchParams(query).toString();
      if (url.length < 8000) check(await request(t.app).get(`${base}?${url}`).set(t.auth()), `GET ${base}?${url.slice(0, 80)}`);
      check(await request(t.app).post(`${base}/.search`).set(t.auth()).send(params), `POST ${base}/.search ${JSON.stringify(params).slice(0, 80)}`);
    }
  });
}

function ok(res: request.Response, how: string): void {
  if (res.status !== 200) throw new Error(`${how}: expected 200, got ${res.status} ${res.text.slice(0, 200)}`);
  expect(res.body.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:ListResponse"]);
}

function refusedWith(scimType: string) {
  return (res: request.Response, how: string) => {
    try { expectScimError(res, 400, scimType); } catch (err) { throw new Error(`${how}: ${res.status} ${res.text.slice(0, 200)}\n${(err as Error).message}`); }
  };
}

describe("count and startIndex", () => {
  it("should read a negative count as 0 and a startIndex below 1 as 1 ([RFC7644§3.4.2.4])", async () => {
    await both(s, { count: -5, startIndex: -5 }, (res, how) => {
      ok(res, how);
      expect(res.body).toMatchObject({ startIndex: 1, itemsPerPage: 0, Resources: [] });
      expect(res.body.totalResults).toBeGreaterThan(0);
    });
  });

  it("should cap a huge count at maxResults and answer a huge startIndex with an empty page", async () => {
    for (const n of ["99999999999999999999", "9007199254740993", String(2 ** 31)]) {
      await both(s, { count: n }, (res, how) => { ok(res, how); expect(res.body.itemsPerPage).toBe(res.body.totalResults); });
      await both(s, { startIndex: n }, (res, how) => { ok(res, how); expect(res.body.Resources).toEqual([]); expect(Number.isSafeInteger(res.body.startIndex)).toBe(true); });
    }
  });

  it("should refuse values that are not integers with 400 invalidValue", async () => {
    for (const v of ["1e30", "1.5", "abc", "0x10", "", " ", "Infinity", "NaN", "--1", "١٢"]) {
      if (v.trim() === "") continue; // empty means "not given"
      await both(s, { count: v }, refusedWith("invalidValue"));
      await both(s, { startIndex: v }, refusedWith("invalidValue"));
    }
    for (const v of [1e30, 1.5, true, null, {}, ["1"], [1, 2]]) {
      await expectUnchanged(s.redis, s.prefix, async () => {
        const res = await request(s.app).post(`${U}/.search`).set(s.auth()).send({ count: v });
        expectScimError(res, 400, "invalidValue");
      });
    }
  });

  it("should refuse a repeated parameter with 400", async () => {
    expectScimError(await request(s.app).get(`${U}?count=1&count=2`).set(s.auth()), 400, "invalidValue");
    expectScimError(await request(s.app).get(`${U}?startIndex=1&startIndex=2`).set(s.auth()), 400, "invalidValue");
    expectScimError(await request(s.app).get(`${U}?filter=a%20pr&filter=b%20pr`).set(s.auth()), 400, "invalidValue");
  });
});

describe("pathological filters", () => {
  const parens = (n: number) => "(".repeat(n) + 'externalId eq "x"' + ")".repeat(n);
  const nots = (n: number) => "not (".repeat(n) + 'userName eq "x"' + ")".repeat(n);
  const ors = (n: number, attr = "externalId") => Array.from({ length: n }, (_, i) => `${attr} eq "u${i}"`).join(" or ");
  const ands = (n: number) => Array.from({ length: n }, (_, i) => `displayName ne "none${i}"`).join(" and ");

  it("should refuse a filter longer than scim.maxFilterLength with 400 invalidFilter", async () => {
    await both(s, { filter: `userName eq "${"a".repeat(5000)}"` }, refusedWith("invalidFilter"));
    await both(s, { filter: ors(1000) }, refusedWith("invalidFilter"));
    await both(s, { filter: parens(10_000) }, refusedWith("invalidFilter"));
  });

  it("should refuse 10,000 nested parentheses, nots and value paths even with a huge length limit", async () => {
    for (const filter of [parens(10_000), nots(10_000), "emails[".repeat(5000) + 'value eq "x"' + "]".repeat(5000), parens(33)]) {
      await both(wide, { filter }, refusedWith("invalidFilter"));
    }
    await both(wide, { filter: parens(32) }, ok);
  });

  it("should refuse more comparisons than scim.maxFilterTerms (64 by default) with 400 invalidFilter", async () => {
    await both(s, { filter: ors(64, "externalId") }, ok);
    await both(s, { filter: ors(65, "externalId") }, refusedWith("invalidFilter"));
  });

  it("should answer 1,000 or-terms, and 1,000 and-terms, without a 5xx", async () => {
    await both(wide, { filter: ors(1000) }, (res, how) => { ok(res, how); expect(res.body.totalResults).toBe(0); });
    await both(wide, { filter: ors(1000, "displayName") }, ok);
    await both(wide, { filter: ands(1000) }, (res, how) => { ok(res, how); expect(res.body.totalResults).toBeGreaterThan(0); });
  });

  it("should answer 50,000 or-terms (a 1 MB filter) with a 4xx or a 200, never a 5xx", async () => {
    for (const filter of [ors(50_000, "displayName"), ors(50_000), ands(50_000)]) {
      await expectUnchanged(wide.redis, wide.prefix, async () => {
        const res = await request(wide.app).post(`${U}/.search`).set(wide.auth()).send({ filter });
        if (res.status !== 200) expectScimError(res, 400, "invalidFilter");
      });
    }
  });

  it("should refuse broken filters with 400 invalidFilter", async () => {
    for (const filter of ['userName eq "abc', 'userName eq "abc\\"', "userName eq", "userName", "eq \"x\"", "(userName pr", "userName pr)", "not userName pr",
      'userName eq "a" or', 'and userName eq "a"', 'userName zz "a"', "userName eq", "userName eq )", 'userName eq a"b', 'emails[type eq "work"', 'emails[type eq "work"]]', 'userName eq "\\u12"',
      '"', "()", "[]", 'userName eq "a" userName eq "b"', "urn: eq \"x\"", "a.b.c eq \"x\"", "__proto__ eq \"x\"", "   "]) {
      await both(s, { filter }, refusedWith("invalidFilter"));
    }
  });
});

describe("filters on attributes that do not exist", () => {
  // draft-zollner-scim-interop-profile (Filtering): "…references an attribute not defined in any of that resource
  // type's schemas, Service Providers MUST return an HTTP 400 error with a scimType of invalidFilter"
  it("should answer 400 invalidFilter, whatever the data holds", async () => {
    for (const filter of ['frobnicate eq "x"', "frobnicate pr", 'name.frobnicate co "x"', 'urn:example:ext:2.0:User:thing eq "x"',
      'emails[frobnicate eq "x"]', 'emails[type eq "work"].frobnicate eq "x"', "meta.frobnicate pr", 'not (frobnicate eq "x")']) {
      await both(s, { filter }, refusedWith("invalidFilter"));
    }
  });

  it("should treat JavaScript object properties (constructor, toString, __proto__ …) as the unknown attributes they are", async () => {
    for (const filter of ["constructor pr", "toString pr", "hasOwnProperty pr", "valueOf pr", 'constructor.name eq "Object"', "name.constructor pr", "emails.constructor pr", "emails[constructor pr]", "isPrototypeOf pr", "not (constructor pr)"]) {
      await both(s, { filter }, refusedWith("invalidFilter"));
    }
  });
});

describe("sortBy, sortOrder, attributes and excludedAttributes", () => {
  it("should sort by unknown or prototype attributes without error", async () => {
    for (const sortBy of ["frobnicate", "constructor", "toString", "name.constructor", "urn:example:ext:2.0:User:x"]) {
      await both(s, { sortBy }, ok);
    }
  });

  it("should refuse a sortBy that is not an attribute path, and an unknown sortOrder, with 400 invalidValue", async () => {
    for (const sortBy of ["a b", "__proto__", "a.b.c", "(", "\u0000"]) await both(s, { sortBy }, refusedWith("invalidValue"));
    for (const sortOrder of ["up", "ASCENDING!", "1"]) await both(s, { sortOrder }, refusedWith("invalidValue"));
  });

  it("should answer odd attributes/excludedAttributes lists without a 5xx", async () => {
    for (const attributes of ["frobnicate", "constructor,__proto__,toString", ",,,", "name.", ".", "a".repeat(5000), "urn:", "emails[type eq \"work\"]"]) {
      for (const p of [{ attributes }, { excludedAttributes: attributes }]) {
        await both(s, p, (res, how) => {
          if (res.status !== 200) refusedWith((res.body as { scimType?: string }).scimType ?? "invalidValue")(res, how);
          else for (const r of res.body.Resources) expect(r.id).toBeDefined();
        });
      }
    }
  });
});
