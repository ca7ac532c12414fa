/**
 * PATCH with a whole schema extension as `path` (issue 10 item 6, [RFC7644§3.5.2]): add and replace merge
 * the extension (a `schemas` key in the value is ignored), remove clears it and takes its URN out of
 * `schemas`; null values unassign; no JavaScript error text reaches `detail`; a refused PATCH changes nothing.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

let s: TestScim;
const U = "/scim/v2/acme/Users";
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const CORE = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());

async function user(name: string, extension?: Record<string, unknown>): Promise<string> {
  const res = await request(s.app).post(U).set(s.auth()).send(userBody(name, extension ? { schemas: [CORE, ENT], [ENT]: extension } : {}));
  expect(res.status).toBe(201);
  return res.body.id;
}

const patch = (id: string, ...ops: unknown[]) => request(s.app).patch(`${U}/${id}`).set(s.auth()).send({ schemas: [PATCH], Operations: ops });
const get = async (id: string) => (await request(s.app).get(`${U}/${id}`).set(s.auth())).body;

describe("PATCH /Users/:id with the enterprise extension URN as path", () => {
  it.each(["add", "replace", "Add", "Replace"])("should merge the value into the extension on %s, ignoring a schemas key in it", async (op) => {
    const id = await user(`ext.merge.${op}.${Math.random().toString(36).slice(2)}@example.com`, { department: "Sales", manager: { value: "m-1" } });
    const res = await patch(id, { op, path: ENT, value: { schemas: [ENT], costCenter: "CC-7", department: "Retail" } });
    expect(res.status).toBe(200);
    expect(res.body[ENT]).toEqual({ department: "Retail", costCenter: "CC-7", manager: { value: "m-1" } });
    expect(res.body.schemas).toEqual([CORE, ENT]);
    expect((await get(id))[ENT]).toEqual(res.body[ENT]);
  });

  it("should add the extension and its URN to schemas on a user that had none", async () => {
    const id = await user("ext.new@example.com");
    expect((await get(id)).schemas).toEqual([CORE]);
    const res = await patch(id, { op: "add", path: ENT, value: { employeeNumber: "42", manager: "m-2" } });
    expect(res.status).toBe(200);
    expect(res.body[ENT]).toEqual({ employeeNumber: "42", manager: { value: "m-2" } });
    expect(res.body.schemas).toEqual([CORE, ENT]);
  });

  it("should clear the extension on remove and take its URN out of schemas", async () => {
    const id = await user("ext.clear@example.com", { department: "Sales", employeeNumber: "7", manager: { value: "m-1" } });
    const res = await patch(id, { op: "remove", path: ENT });
    expect(res.status).toBe(200);
    expect(res.body[ENT]).toBeUndefined();
    expect(res.body.schemas).toEqual([CORE]);
    const stored = await get(id);
    expect(stored[ENT]).toBeUndefined();
    expect(stored.schemas).toEqual([CORE]);
    // nothing to clear any more: no change, same version
    const again = await patch(id, { op: "remove", path: ENT });
    expect(again.status).toBe(200);
    expect(again.body.meta.version).toBe(res.body.meta.version);
  });

  it("should apply a remove of the extension in order with the other operations", async () => {
    const id = await user("ext.order@example.com", { department: "Sales" });
    const res = await patch(id,
      { op: "add", path: `${ENT}:costCenter`, value: "CC-1" },
      { op: "remove", path: ENT },
      { op: "add", path: `${ENT}:division`, value: "North" });
    expect(res.status).toBe(200);
    expect(res.body[ENT]).toEqual({ division: "North" });
  });

  it("should unassign attributes set to null, by path, in a no-path value and in an extension value", async () => {
    const id = await user("ext.null@example.com", { department: "Sales", costCenter: "CC-1" });
    await request(s.app).patch(`${U}/${id}`).set(s.auth()).send({ schemas: [PATCH], Operations: [{ op: "replace", path: "title", value: "Boss" }] }).expect(200);
    const res = await patch(id,
      { op: "replace", path: "title", value: null },
      { op: "replace", value: { nickName: null, [ENT]: { department: null } } },
      { op: "add", path: ENT, value: { costCenter: null } });
    expect(res.status).toBe(200);
    expect(res.body.title).toBeUndefined();
    expect(res.body[ENT]).toBeUndefined();
    expect(res.body.schemas).toEqual([CORE]);
  });

  it("should ignore an attribute the enterprise extension does not define and apply the rest ([RFC7644§3.3])", async () => {
    const id = await user(`ext.unknown.${Math.random().toString(36).slice(2)}@example.com`, { department: "Sales" });
    const res = await patch(id, { op: "add", path: ENT, value: { frobnicate: "x", costCenter: "42" } });
    expect(res.status).toBe(200);
    expect(res.body[ENT]).toEqual({ department: "Sales", costCenter: "42" });
  });

  it.each([
    [{ op: "add", path: ENT, value: "Retail" }, "invalidValue"],
    [{ op: "replace", path: ENT, value: [{ department: "x" }] }, "invalidValue"],
    [{ op: "replace", path: `${ENT}:manager`, value: { givenName: "g" } }, "invalidPath"],
    [{ op: "add", path: ENT, value: { manager: { a: { b: 1 } } } }, undefined],
    [{ op: "add", path: `${ENT}:department`, value: [null] }, undefined],
    [{ op: "remove", path: "roles", value: [[1]] }, undefined],
  ])("should refuse %j with a 400 whose detail holds no JavaScript error text, and change nothing", async (op, scimType) => {
    const id = await user(`ext.bad.${Math.random().toString(36).slice(2)}@example.com`, { department: "Sales", manager: { value: "m-1" } });
    await expectUnchanged(s.redis, s.prefix, async () => {
      const res = await patch(id, op);
      if (res.status !== 400) throw new Error(`${res.status} ${res.text}`);
      expectScimError(res, 400, scimType ?? res.body.scimType);
      expect(res.body.detail).not.toMatch(/Cannot |not extensible|is not a function|reading '|undefined|null to object/);
    });
  });
});
