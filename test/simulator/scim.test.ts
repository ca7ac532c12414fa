/**
 * The simulator's platform SCIM API (/api/scim/v2 Users and Groups), over HTTP: CRUD, case-insensitive
 * userName uniqueness, startIndex/count paging, eq filters, member PATCH forms, RFC 7644 error bodies.
 */
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, http, startTestSimulator } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());
const AUTH = `Bearer ${KEYS.unscoped}`;
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const post = (path: string, body: object) => http(sim).post(`/api/scim/v2${path}`).set("Authorization", AUTH).send(body);
const get = (path: string) => http(sim).get(`/api/scim/v2${path}`).set("Authorization", AUTH);
const patch = (path: string, Operations: object[]) => http(sim).patch(`/api/scim/v2${path}`).set("Authorization", AUTH).send({ schemas: [PATCH], Operations });
const createUser = async (userName: string) => (await post("/Users", { userName })).body.id as string;

describe("/Users", () => {
  it("should create a user with 201, an id and meta", async () => {
    const res = await post("/Users", { userName: "ann@x.com", name: { givenName: "Ann" } });
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toMatch(/application\/scim\+json/);
    expect(res.body).toMatchObject({ userName: "ann@x.com", active: true, id: expect.any(String), meta: { resourceType: "User" } });
  });

  it("should answer 409 uniqueness for a userName that differs only in case", async () => {
    await createUser("ann@x.com");
    const res = await post("/Users", { userName: "ANN@x.com" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "409", scimType: "uniqueness", detail: "userName ANN@x.com already exists" });
  });

  it("should answer 400 when userName is missing", async () => {
    expect((await post("/Users", { displayName: "x" })).body.scimType).toBe("invalidValue");
  });

  it("should page with startIndex and count and report totalResults", async () => {
    for (let i = 0; i < 5; i++) await createUser(`u${i}`);
    const res = await get("/Users?startIndex=2&count=2");
    expect(res.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(res.body.Resources.map((u: { userName: string }) => u.userName)).toEqual(["u1", "u2"]);
  });

  it("should filter by userName eq case-insensitively, with escaped quotes", async () => {
    await createUser('we"ird@x.com');
    await createUser("other");
    const res = await get(`/Users?filter=${encodeURIComponent('userName eq "WE\\"IRD@x.com"')}`);
    expect(res.body.totalResults).toBe(1);
    expect(res.body.Resources[0].userName).toBe('we"ird@x.com');
  });

  it("should answer 400 invalidFilter for filters it does not support", async () => {
    expect((await get(`/Users?filter=${encodeURIComponent('userName co "a"')}`)).body.scimType).toBe("invalidFilter");
  });

  it("should replace a user with PUT and keep its id", async () => {
    const id = await createUser("ann");
    const res = await http(sim).put(`/api/scim/v2/Users/${id}`).set("Authorization", AUTH).send({ userName: "ann2", active: false });
    expect(res.body).toMatchObject({ id, userName: "ann2", active: false });
    expect((await get(`/Users?filter=${encodeURIComponent('userName eq "ann"')}`)).body.totalResults).toBe(0);
  });

  it("should deactivate with PATCH replace active=false, by path and without path", async () => {
    const id = await createUser("ann");
    expect((await patch(`/Users/${id}`, [{ op: "replace", path: "active", value: false }])).body.active).toBe(false);
    expect((await patch(`/Users/${id}`, [{ op: "Replace", value: { active: true, "name.givenName": "Ann" } }])).body).toMatchObject({ active: true, name: { givenName: "Ann" } });
  });

  it("should delete a user, drop it from groups and answer 404 afterwards", async () => {
    const id = await createUser("ann");
    const g = await post("/Groups", { displayName: "G", members: [{ value: id }] });
    expect((await http(sim).delete(`/api/scim/v2/Users/${id}`).set("Authorization", AUTH)).status).toBe(204);
    expect((await get(`/Users/${id}`)).status).toBe(404);
    expect((await get(`/Groups/${g.body.id}`)).body.members).toEqual([]);
  });
});

describe("/Groups", () => {
  it("should create a group with members and list it with excludedAttributes=members", async () => {
    const a = await createUser("a");
    const res = await post("/Groups", { displayName: "Eng", members: [{ value: a }] });
    expect(res.status).toBe(201);
    expect(res.body.members).toEqual([{ value: a, display: "a" }]);
    const list = await get("/Groups?excludedAttributes=members");
    expect(list.body.Resources[0].members).toBeUndefined();
  });

  it("should answer 409 for a displayName taken in another case and 400 for an unknown member", async () => {
    await post("/Groups", { displayName: "Eng" });
    expect((await post("/Groups", { displayName: "eng" })).status).toBe(409);
    expect((await post("/Groups", { displayName: "Ops", members: [{ value: "nope" }] })).body.scimType).toBe("invalidValue");
  });

  it("should filter by displayName eq", async () => {
    await post("/Groups", { displayName: "Eng" });
    await post("/Groups", { displayName: "Ops" });
    expect((await get(`/Groups?filter=${encodeURIComponent('displayName eq "Ops"')}`)).body.Resources.map((g: { displayName: string }) => g.displayName)).toEqual(["Ops"]);
  });

  it("should add members from a value array and remove them by value array and by members[value eq] path", async () => {
    const [a, b, c] = [await createUser("a"), await createUser("b"), await createUser("c")];
    const id = (await post("/Groups", { displayName: "Eng" })).body.id;
    expect((await patch(`/Groups/${id}`, [{ op: "add", path: "members", value: [{ value: a }, { value: b }, { value: c }] }])).status).toBe(204);
    await patch(`/Groups/${id}`, [{ op: "remove", path: `members[value eq "${a}" or value eq "${b}"]` }]);
    expect((await get(`/Groups/${id}`)).body.members.map((m: { value: string }) => m.value)).toEqual([c]);
    await patch(`/Groups/${id}`, [{ op: "remove", path: "members", value: [{ value: c }] }]);
    expect((await get(`/Groups/${id}`)).body.members).toEqual([]);
  });

  it("should rename with PATCH replace displayName and delete with 204", async () => {
    const id = (await post("/Groups", { displayName: "Eng" })).body.id;
    await patch(`/Groups/${id}`, [{ op: "replace", path: "displayName", value: "Engineering" }]);
    expect((await get(`/Groups/${id}`)).body.displayName).toBe("Engineering");
    expect((await http(sim).delete(`/api/scim/v2/Groups/${id}`).set("Authorization", AUTH)).status).toBe(204);
    expect((await http(sim).delete(`/api/scim/v2/Groups/${id}`).set("Authorization", AUTH)).status).toBe(404);
  });

  it("should answer 400 noTarget for a remove without path", async () => {
    const id = (await post("/Groups", { displayName: "Eng" })).body.id;
    expect((await patch(`/Groups/${id}`, [{ op: "remove" }])).body.scimType).toBe("noTarget");
  });
});
