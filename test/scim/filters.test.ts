import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

let s: TestScim;
const ids: Record<string, string> = {};
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

beforeAll(async () => {
  s = await startScim();
  const people = [
    userBody("alice@example.com", { displayName: "Alice A", title: "Engineer", externalId: "ext-a", emails: [{ value: "alice@example.com", type: "work", primary: true }, { value: "alice@home.org", type: "home" }], [ENT]: { department: "R&D", employeeNumber: "100" } }),
    userBody("bob@example.com", { displayName: "Bob B", title: "Manager", active: false, emails: [{ value: "BOB@Example.com", type: "work" }] }),
    userBody("carol@other.org", { name: undefined, emails: undefined, userType: "Contractor" }),
  ];
  for (const p of people) {
    const r = await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(p);
    expect(r.status).toBe(201);
    ids[String(p.userName).split("@")[0]] = r.body.id;
  }
});
afterAll(async () => s.close());

async function names(filter: string): Promise<string[]> {
  const res = await request(s.app).get("/scim/v2/acme/Users").query({ filter }).set(s.auth());
  expect(res.status).toBe(200);
  return res.body.Resources.map((r: { userName: string }) => r.userName.split("@")[0]).sort();
}

describe("GET /Users?filter=…", () => {
  it.each([
    ['userName eq "ALICE@example.com"', ["alice"]],
    ['userName ne "alice@example.com"', ["bob", "carol"]],
    ['userName co "example"', ["alice", "bob"]],
    ['userName sw "B"', ["bob"]],
    ['userName ew ".ORG"', ["carol"]],
    ["title pr", ["alice", "bob"]],
    ['title gt "F"', ["bob"]],
    ['title ge "Manager"', ["bob"]],
    ['title lt "F"', ["alice"]],
    ['title le "Engineer"', ["alice"]],
    ["active eq false", ["bob"]],
    ['title pr and not (active eq false)', ["alice"]],
    ['(userName sw "a" or userName sw "b") and title eq "manager"', ["bob"]],
    ['emails[type eq "work"].value eq "bob@example.com"', ["bob"]],
    ['emails[type eq "home" and value ew "home.org"]', ["alice"]],
    ['emails.value eq "alice@home.org"', ["alice"]],
    ['emails co "home"', ["alice"]],
    ['name.givenName sw "G"', ["alice", "bob"]],
    [`${ENT}:department eq "r&d"`, ["alice"]],
    ['USERNAME EQ "bob@example.com"', ["bob"]],
    ['externalId eq "ext-a"', ["alice"]],
    ['externalId eq "EXT-A"', []],
    ['displayName eq "bob b"', ["bob"]],
    ['userType eq "Contractor"', ["carol"]],
    ['meta.created gt "2000-01-01T00:00:00Z"', ["alice", "bob", "carol"]],
    ['meta.lastModified lt "2000-01-01T00:00:00Z"', []],
    ['nickName eq "nobody"', []],
  ])("%s", async (filter, expected) => {
    expect(await names(filter as string)).toEqual(expected);
  });

  it("should find by id", async () => {
    expect(await names(`id eq "${ids.carol}"`)).toEqual(["carol"]);
  });

  it("should answer 200 with an empty ListResponse for a user that does not exist (E10, O1)", async () => {
    const res = await request(s.app).get("/scim/v2/acme/Users?filter=userName%20eq%20%22non-existent%20user%22&startIndex=1&count=100").set(s.auth());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
  });

  it("should never error on an attribute that some records lack", async () => {
    expect(await names('name.givenName sw "Giv"')).toEqual(["alice", "bob"]);
    expect(await names('emails[type eq "work"].value pr')).toEqual(["alice", "bob"]);
  });

  it.each(["userName eq", 'userName eq "a" and', "((userName eq \"a\")", "active gt true", "userName zz \"a\""])(
    "should answer 400 invalidFilter for %j", async (filter) => {
      expectScimError(await request(s.app).get("/scim/v2/acme/Users").query({ filter }).set(s.auth()), 400, "invalidFilter");
    });

  it("should use an index, not a scan, for eq on userName, externalId, id, displayName and emails.value", async () => {
    const scan = jest.spyOn(s.users, "idsAfter");
    for (const f of ['userName eq "alice@example.com"', 'externalId eq "ext-a"', `id eq "${ids.bob}"`, 'displayName eq "Alice A"',
      'emails.value eq "alice@home.org"', 'emails[type eq "work"].value eq "bob@example.com"', 'userName eq "a" or externalId eq "ext-a"',
      'userName eq "bob@example.com" and title co "x"']) {
      await names(f);
    }
    expect(scan).not.toHaveBeenCalled();
    await names('title co "e"');
    expect(scan).toHaveBeenCalled();
    scan.mockRestore();
  });

  it("should answer an index lookup from one store read (the IdP's userName eq before every write)", async () => {
    const reads = jest.spyOn(s.users, "find");
    try {
      const res = await request(s.app).get("/scim/v2/acme/Users").query({ filter: 'userName eq "alice@example.com"' }).set(s.auth());
      expect(res.body.Resources.map((u: { id: string }) => u.id)).toEqual([ids.alice]);
      expect(res.body.Resources[0].emails).toHaveLength(2);
      expect(reads).toHaveBeenCalledTimes(1);
      reads.mockClear();
      // a filter the index answers only in part is still evaluated on what it read
      expect(await names('userName eq "bob@example.com" and title eq "engineer"')).toEqual([]);
      expect(await names('userName eq "bob@example.com" and title eq "manager"')).toEqual(["bob"]);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
    }
  });

  it("should read a group found by an index again only when the response shows members the lookup did not load", async () => {
    const alice = ids.alice;
    const g = await request(s.app).post("/scim/v2/acme/Groups").set(s.auth()).send({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Lookup Once", members: [{ value: alice }] }).expect(201);
    const reads = jest.spyOn(s.groups, "find");
    try {
      const bare = await request(s.app).get("/scim/v2/acme/Groups").query({ filter: 'displayName eq "Lookup Once"', excludedAttributes: "members" }).set(s.auth());
      expect(bare.body.Resources.map((r: { id: string; members?: unknown }) => [r.id, r.members])).toEqual([[g.body.id, undefined]]);
      expect(reads.mock.calls.map((c) => c[3])).toEqual([false]);
      reads.mockClear();
      const full = await request(s.app).get("/scim/v2/acme/Groups").query({ filter: 'displayName eq "Lookup Once"' }).set(s.auth());
      expect(full.body.Resources[0].members.map((m: { value: string }) => m.value)).toEqual([alice]);
      // read again with its members, as many as one bounded read takes (more are streamed)
      expect(reads.mock.calls.map((c) => c[3])).toEqual([false, "sliced"]);
      reads.mockClear();
      const byMember = await request(s.app).get("/scim/v2/acme/Groups").query({ filter: `members[value eq "${alice}"] and displayName eq "Lookup Once"` }).set(s.auth());
      expect(byMember.body.Resources[0].members.map((m: { value: string }) => m.value)).toEqual([alice]);
      expect(reads.mock.calls.map((c) => c[3])).toEqual([true]);
    } finally {
      reads.mockRestore();
      await request(s.app).delete(`/scim/v2/acme/Groups/${g.body.id}`).set(s.auth()).expect(204);
    }
  });

  describe("lenient literals (issue 10 item 3)", () => {
    it.each([
      ["userName sw B", ["bob"]],
      ["name.familyName eq Family and (emails.value co example.com or emails.value co home.org)", ["alice", "bob"]],
      ["emails[type eq work].value eq bob@example.com", ["bob"]],
      ["userName eq ALICE@example.com", ["alice"]],
      ["active eq false", ["bob"]],
      ["active eq False", ["bob"]],
      ["title eq null", ["carol"]],
      [`${ENT}:employeeNumber eq 100`, ["alice"]],
      [`${ENT}:employeeNumber eq 100.0`, []],
    ])("%s", async (filter, expected) => {
      expect(await names(filter as string)).toEqual(expected);
    });

    it("should answer an unquoted externalId from the index, compared as written", async () => {
      const r = await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody("numeric.ext@example.com", { externalId: "00123" }));
      expect(r.status).toBe(201);
      const scan = jest.spyOn(s.users, "idsAfter");
      expect(await names("externalId eq 00123")).toEqual(["numeric.ext"]);
      expect(await names("externalId eq 123")).toEqual([]);
      expect(scan).not.toHaveBeenCalled();
      scan.mockRestore();
      await request(s.app).delete(`/scim/v2/acme/Users/${r.body.id}`).set(s.auth()).expect(204);
    });

    it("should compare meta.created as instants, with fractional seconds and offsets", async () => {
      const alice = (await request(s.app).get(`/scim/v2/acme/Users/${ids.alice}`).set(s.auth())).body;
      const created = Date.parse(alice.meta.created);
      /** the instant `created` + `extra` (fraction digits beyond the millisecond), written at UTC-07:00 */
      const at = (extra: string) => `${new Date(created - 7 * 3600_000).toISOString().slice(0, 23)}${extra}-07:00`;
      expect(await names(`meta.created eq ${at("0000")} and userName sw alice`)).toEqual(["alice"]);
      expect(await names(`meta.created ge ${at("0000")} and userName sw alice`)).toEqual(["alice"]);
      expect(await names(`meta.created lt ${at("0001")} and userName sw alice`)).toEqual(["alice"]);
      expect(await names(`meta.created gt ${at("0001")} and userName sw alice`)).toEqual([]);
      expect(await names(`meta.created gt "${at("0000")}" and userName sw alice`)).toEqual([]);
      expect(await names("meta.created gt 2015-10-10T14:38:21.8617979-07:00")).toEqual(["alice", "bob", "carol"]);
      expect(await names("meta.created lt 2015-10-10")).toEqual([]);
    });

    it.each(["userName eq", "userName eq )", "(userName eq)", "userName eq and title pr", 'userName eq a"b', "meta.created gt yesterday",
      'meta.lastModified lt "2015-13-01T00:00:00Z"', "frobnicate eq x", "name.frobnicate pr", 'emails[frobnicate eq "x"]', "constructor pr"])(
      "should answer 400 invalidFilter for %j, and change nothing", async (filter) => {
        await expectUnchanged(s.redis, s.prefix, async () => {
          expectScimError(await request(s.app).get("/scim/v2/acme/Users").query({ filter }).set(s.auth()), 400, "invalidFilter");
          expectScimError(await request(s.app).post("/scim/v2/acme/Users/.search").set(s.auth()).send({ filter }), 400, "invalidFilter");
        });
      });
  });
});
