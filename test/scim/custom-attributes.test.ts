/**
 * Declared User extensions (`directories[].extensions`): stored, returned, patched in the forms Okta and
 * Entra send, filterable, bounded, advertised in /Schemas and /ResourceTypes.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

const CORE = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const CUSTOM = "urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const U = "/scim/v2/acme/Users";

export const EXTENSION = {
  urn: CUSTOM,
  description: "Attributes the IdP admin mapped",
  attributes: [
    { name: "CostCenterCode", type: "string", description: "Cost centre" },
    { name: "Badge", type: "integer" },
    { name: "Contractor", type: "boolean" },
    { name: "Skills", type: "string", multiValued: true },
    { name: "Hired", type: "dateTime" },
  ],
  maxValueLength: 20,
  maxValues: 3,
};

let s: TestScim;
beforeAll(async () => { s = await startScim({}, { acme: { extensions: [EXTENSION] } }); });
afterAll(async () => s.close());

async function create(userName: string, ext: Record<string, unknown>): Promise<string> {
  const res = await request(s.app).post(U).set(s.auth()).send({ schemas: [CORE, CUSTOM], userName, [CUSTOM]: ext });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
const patch = (id: string, ...ops: unknown[]) => request(s.app).patch(`${U}/${id}`).set(s.auth()).send({ schemas: [PATCH], Operations: ops });

describe("declared extension attributes", () => {
  it("should store, return and list them in schemas (POST, GET, PUT)", async () => {
    const id = await create("decl.one@example.com", { costcentercode: "CC-1", Badge: "42", Contractor: "True", Skills: "go", Hired: "2024-05-01T09:30:00Z", Unknown: "x" });
    const got = await request(s.app).get(`${U}/${id}`).set(s.auth());
    expect(got.body.schemas).toEqual([CORE, CUSTOM]);
    expect(got.body[CUSTOM]).toEqual({ CostCenterCode: "CC-1", Badge: 42, Contractor: true, Skills: ["go"], Hired: "2024-05-01T09:30:00Z" });
    const only = await request(s.app).get(`${U}/${id}`).set(s.auth()).query({ attributes: `${CUSTOM}:Badge` });
    expect(only.body[CUSTOM]).toEqual({ Badge: 42 });
    expect(only.body.userName).toBeUndefined();
    const put = await request(s.app).put(`${U}/${id}`).set(s.auth()).send({ schemas: [CORE], userName: "decl.one@example.com" });
    expect(put.body.schemas).toEqual([CORE]);
    expect(put.body[CUSTOM]).toBeUndefined();
  });

  it("should apply an E20 PATCH: deactivation and the custom attribute together", async () => {
    const id = await create("decl.e20@example.com", { CostCenterCode: "CC-0" });
    const res = await patch(id, { op: "Replace", path: "active", value: "False" }, { op: "Add", path: `${CUSTOM}:CostCenterCode`, value: "CC-1" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ active: false, [CUSTOM]: { CostCenterCode: "CC-1" } });
  });

  it("should take every PATCH form: path, no-path URN object, no-path URN key, whole-extension path, value filters, removes", async () => {
    const id = await create("decl.forms@example.com", { Skills: ["go", "sql"] });
    const first = await patch(id, { op: "replace", value: { [CUSTOM]: { Badge: 7 }, [`${CUSTOM}:Contractor`]: false, displayName: "F" } });
    if (first.status !== 200) throw new Error(first.text);
    expect((await patch(id, { op: "replace", value: { [CUSTOM]: { Badge: 7 }, [`${CUSTOM}:Contractor`]: false, displayName: "F" } })).body[CUSTOM])
      .toEqual({ Skills: ["go", "sql"], Badge: 7, Contractor: false });
    expect((await patch(id, { op: "add", path: CUSTOM, value: { CostCenterCode: "CC-9", Skills: ["rust", "go"] } })).body[CUSTOM])
      .toEqual({ Skills: ["go", "sql", "rust"], Badge: 7, Contractor: false, CostCenterCode: "CC-9" });
    expect((await patch(id, { op: "replace", path: `${CUSTOM}:Skills[value eq "SQL"]`, value: "sql2" })).body[CUSTOM].Skills).toEqual(["go", "rust", "sql2"]);
    expect((await patch(id, { op: "remove", path: `${CUSTOM}:Skills[value eq "go"]` })).body[CUSTOM].Skills).toEqual(["rust", "sql2"]);
    expectScimError(await patch(id, { op: "replace", path: `${CUSTOM}:Skills[value eq "none"]`, value: "x" }), 400, "noTarget");
    expect((await patch(id, { op: "remove", path: `${CUSTOM}:Badge` }, { op: "replace", path: `${CUSTOM}:Contractor`, value: null })).body[CUSTOM])
      .toEqual({ Skills: ["rust", "sql2"], CostCenterCode: "CC-9" });
    const cleared = await patch(id, { op: "remove", path: CUSTOM });
    expect(cleared.body[CUSTOM]).toBeUndefined();
    expect(cleared.body.schemas).toEqual([CORE]);
  });

  it("should refuse values that do not fit the declaration or its bounds with 400 invalidValue, changing nothing", async () => {
    const id = await create("decl.bad@example.com", { Skills: ["a", "b", "c"] });
    for (const op of [
      { op: "replace", path: `${CUSTOM}:Badge`, value: "seven" },
      { op: "replace", path: `${CUSTOM}:Badge`, value: 1.5 },
      { op: "replace", path: `${CUSTOM}:Contractor`, value: "maybe" },
      { op: "replace", path: `${CUSTOM}:Hired`, value: "yesterday" },
      { op: "replace", path: `${CUSTOM}:CostCenterCode`, value: "x".repeat(21) },
      { op: "replace", path: `${CUSTOM}:CostCenterCode`, value: ["a", "b"] },
      { op: "add", path: `${CUSTOM}:Skills`, value: "d" },
    ]) {
      await expectUnchanged(s.redis, s.prefix, async () => expectScimError(await patch(id, { op: "replace", path: "active", value: false }, op), 400, "invalidValue"));
    }
    await expectUnchanged(s.redis, s.prefix, async () =>
      expectScimError(await request(s.app).post(U).set(s.auth()).send({ userName: "decl.bad2@example.com", [CUSTOM]: { Skills: ["a", "b", "c", "d"] } }), 400, "invalidValue"));
  });

  it("should filter on them with eq (and the other operators), case-insensitively unless caseExact", async () => {
    const a = await create("decl.f1@example.com", { CostCenterCode: "FIN-1", Badge: 100 });
    await create("decl.f2@example.com", { CostCenterCode: "ENG-1", Badge: 200 });
    const q = async (filter: string) => (await request(s.app).get(U).set(s.auth()).query({ filter })).body;
    expect((await q(`${CUSTOM}:CostCenterCode eq "fin-1"`)).Resources.map((r: { id: string }) => r.id)).toEqual([a]);
    expect((await q(`${CUSTOM}:Badge gt 150`)).totalResults).toBe(1);
    expect((await q(`userName sw "decl.f" and ${CUSTOM}:CostCenterCode sw "ENG"`)).totalResults).toBe(1);
    expectScimError(await request(s.app).get(U).set(s.auth()).query({ filter: `${CUSTOM}:Nope eq "x"` }), 400, "invalidFilter");
    const other = await request(s.app).get("/scim/v2/globex/Users").set(s.auth("globex")).query({ filter: `${CUSTOM}:CostCenterCode eq "x"` });
    expectScimError(other, 400, "invalidFilter");
  });

  it("should leave the enterprise extension to SCIMMY beside a declared one", async () => {
    const res = await request(s.app).post(U).set(s.auth()).send({ schemas: [CORE, ENT, CUSTOM], userName: "decl.ent@example.com", [ENT]: { department: "R&D" }, [CUSTOM]: { Badge: 1 } });
    expect(res.body.schemas).toEqual([CORE, ENT, CUSTOM]);
    expect(res.body[ENT]).toEqual({ department: "R&D" });
  });

  it("should advertise them in this directory's /Schemas and /ResourceTypes only", async () => {
    const schemas = (dir: "acme" | "globex") => request(s.app).get(`/scim/v2/${dir}/Schemas`).set(s.auth(dir));
    const ids = (res: request.Response) => (res.body.Resources as Array<{ id: string }>).map((d) => d.id);
    expect(ids(await schemas("acme"))).toContain(CUSTOM);
    expect(ids(await schemas("globex"))).not.toContain(CUSTOM);
    const doc = await request(s.app).get(`/scim/v2/acme/Schemas/${CUSTOM}`).set(s.auth());
    expect(doc.body.attributes.map((a: { name: string; type: string; multiValued: boolean }) => [a.name, a.type, a.multiValued])).toEqual([
      ["CostCenterCode", "string", false], ["Badge", "integer", false], ["Contractor", "boolean", false], ["Skills", "string", true], ["Hired", "dateTime", false],
    ]);
    expectScimError(await request(s.app).get(`/scim/v2/globex/Schemas/${CUSTOM}`).set(s.auth("globex")), 404);
    const user = async (dir: "acme" | "globex") => (await request(s.app).get(`/scim/v2/${dir}/ResourceTypes/User`).set(s.auth(dir))).body.schemaExtensions;
    expect(await user("acme")).toEqual([{ schema: ENT, required: false }, { schema: CUSTOM, required: false }]);
    expect(await user("globex")).toEqual([{ schema: ENT, required: false }]);
  });
});
