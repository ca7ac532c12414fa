/**
 * Bad resources and PatchOps: unknown attributes and schemas, PATCH paths that do not exist, values of
 * the wrong type, member lists that are not lists of ids. Refusals are SCIM 400s with an unchanged store;
 * what is accepted leaves nothing unknown in the store.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";
import { waitTrail, withTrailEvent } from "../helpers/activity-wait";

let s: TestScim;
let userId: string;
/** A user of globex, a strict directory (attributes it does not have are refused, not ignored). */
let strictUserId: string;
let strictGroupId: string;
let groupId: string;
const U = "/scim/v2/acme/Users";
const G = "/scim/v2/acme/Groups";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

beforeAll(async () => {
  s = await startScim({}, { globex: { strict: true } });
  userId = (await request(s.app).post(U).set(s.auth()).send(userBody("alice@example.com", { displayName: "Alice", [ENT]: { department: "R&D" } }))).body.id;
  strictUserId = (await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("alice@example.com", { displayName: "Alice" }))).body.id;
  strictGroupId = (await request(s.app).post("/scim/v2/globex/Groups").set(s.auth("globex")).send({ displayName: "Admins" })).body.id;
  groupId = (await request(s.app).post(G).set(s.auth()).send({ displayName: "Admins", members: [{ value: userId }] })).body.id;
});
afterAll(async () => s.close());

async function refused(req: () => request.Test, scimType: string, status = 400): Promise<void> {
  await expectUnchanged(s.redis, s.prefix, async () => {
    const res = await req();
    try { expectScimError(res, status, scimType); } catch (err) { throw new Error(`${res.status} ${res.text.slice(0, 300)}\n${(err as Error).message}`); }
  });
}

const patchUser = (ops: unknown[]) => () => request(s.app).patch(`${U}/${userId}`).set(s.auth()).send({ schemas: [PATCH], Operations: ops });
const patchGroup = (ops: unknown[]) => () => request(s.app).patch(`${G}/${groupId}`).set(s.auth()).send({ schemas: [PATCH], Operations: ops });

describe("unknown attributes and schemas in POST and PUT", () => {
  it("should drop unknown attributes (as SCIMMY does for IdP extras) and store none of them", async () => {
    const extras = { [ENT]: "not an object", frobnicate: 1, favouriteColour: "blue", "urn:example:unknown:2.0:User": { thing: "x" }, "urn:example:unknown:2.0:User:thing": "y", name: { givenName: "A", nickname_of_nick: "z" } };
    const created = await request(s.app).post(U).set(s.auth()).send(userBody("extras@example.com", extras));
    expect(created.status).toBe(201);
    const put = await withTrailEvent(s, "acme", created.body.id, () => request(s.app).put(`${U}/${created.body.id}`).set(s.auth()).send(userBody("extras@example.com", extras)));
    expect(put.status).toBe(200);
    const g = await request(s.app).post(G).set(s.auth()).send({ displayName: "Extras", frobnicate: true, "urn:example:unknown:2.0:Group": { a: 1 } });
    expect(g.status).toBe(201);
    // every one of them ignored and named in the resource's trail (written after the answer: waited for here)
    await waitTrail(s, "acme", created.body.id, (e) => e.method === "PUT" && !!e.ignored?.includes("urn:example:unknown:2.0:User:thing"));
    await waitTrail(s, "acme", g.body.id, (e) => JSON.stringify(e.ignored) === JSON.stringify(["frobnicate", "urn:example:unknown:2.0:Group:a"]), 5000, "group");
    for (const stored of [(await s.users.get("acme", created.body.id))!.body, (await s.groups.get("acme", g.body.id, false))!.body]) {
      expect(JSON.stringify(stored)).not.toMatch(/frobnicate|favouriteColour|urn:example|nickname_of_nick|not an object/);
    }
    // the deletes' trail events are written after the answers: waited for, so no later snapshot sees them land
    await withTrailEvent(s, "acme", created.body.id, () => request(s.app).delete(`${U}/${created.body.id}`).set(s.auth()).expect(204));
    await withTrailEvent(s, "acme", g.body.id, () => request(s.app).delete(`${G}/${g.body.id}`).set(s.auth()).expect(204), "group");
  });

  it("should keep only the resource type's own schema URIs in 'schemas' ([RFC7643§3])", async () => {
    const created = await request(s.app).post(U).set(s.auth()).send(userBody("schemas@example.com", { schemas: [USER, "urn:example:unknown:2.0:User", ENT, "urn:ietf:params:scim:schemas:core:2.0:Group"] }));
    expect(created.status).toBe(201);
    expect(created.body.schemas).toEqual([USER, ENT]);
    expect((await s.users.get("acme", created.body.id))!.body.schemas).toEqual([USER, ENT]);
    const g = await request(s.app).post(G).set(s.auth()).send({ schemas: [GROUP, "urn:example:unknown"], displayName: "Schemas" });
    expect(g.status).toBe(201);
    await waitTrail(s, "acme", created.body.id, (e) => e.method === "POST");
    await waitTrail(s, "acme", g.body.id, (e) => e.method === "POST", 5000, "group");
    expect((await s.groups.get("acme", g.body.id, false))!.body.schemas).toEqual([GROUP]);
    // the deletes' trail events are written after the answers: waited for, so no later snapshot sees them land
    await withTrailEvent(s, "acme", created.body.id, () => request(s.app).delete(`${U}/${created.body.id}`).set(s.auth()).expect(204));
    await withTrailEvent(s, "acme", g.body.id, () => request(s.app).delete(`${G}/${g.body.id}`).set(s.auth()).expect(204), "group");
  });

  it("should refuse a body whose schemas name no schema of the resource type with 400", async () => {
    for (const schemas of [["urn:example:unknown"], [GROUP], [1], [null], [{}]]) {
      await expectUnchanged(s.redis, s.prefix, async () => {
        const res = await request(s.app).post(U).set(s.auth()).send(userBody("bad.schemas@example.com", { schemas }));
        if (res.status === 201) throw new Error(`schemas ${JSON.stringify(schemas)} accepted: ${res.text.slice(0, 200)}`);
        expectScimError(res, 400, res.body.scimType);
      });
    }
    await refused(() => request(s.app).post(G).set(s.auth()).send({ schemas: [USER], displayName: "Wrong" }), "invalidSyntax");
    await refused(() => request(s.app).put(`${U}/${userId}`).set(s.auth()).send(userBody("alice@example.com", { schemas: ["urn:example:unknown"] })), "invalidSyntax");
  });

  it("should refuse attributes of the wrong type with 400 invalidValue", async () => {
    for (const extra of [{ userName: 5 }, { userName: ["a"] }, { userName: { value: "a" } }, { active: "maybe" }, { active: 1 }, { emails: "a@example.com" },
      { emails: [1] }, { name: "Alice" }, { name: [{ givenName: "a" }] }, { [ENT]: { manager: 5 } }, { displayName: 7 }, { title: { x: 1 } }, { userName: "" }, { userName: "  " }]) {
      const body = { ...userBody("typed@example.com"), ...extra };
      await refused(() => request(s.app).post(U).set(s.auth()).send(body), "invalidValue");
      await refused(() => request(s.app).put(`${U}/${userId}`).set(s.auth()).send({ ...body, userName: (extra as { userName?: unknown }).userName ?? "alice@example.com" }), "invalidValue");
    }
    for (const body of [{ displayName: 5 }, { displayName: "" }, { displayName: ["Admins"] }, { displayName: "X", externalId: 5 }]) {
      await refused(() => request(s.app).post(G).set(s.auth()).send(body), "invalidValue");
      await refused(() => request(s.app).put(`${G}/${groupId}`).set(s.auth()).send(body), "invalidValue");
    }
  });
});

describe("PATCH paths that do not exist", () => {
  const unknown = ["favouriteColour", "name.middle_name_x", "emails.frobnicate", 'emails[type eq "work"].frobnicate', "urn:example:unknown:2.0:User:thing",
    `${ENT}:frobnicate`, "frobnicate[value eq \"x\"]", "meta.frobnicate"];
  const malformed = ["name.givenName.first", "emails[type eq", 'emails[type eq "work"', "emails]", "[", "..", "a b"];

  it.each(unknown)("should ignore add/replace/remove on User path %j (the user unchanged), and refuse it with 400 invalidPath in a strict directory", async (path) => {
    for (const op of ["add", "replace", "remove"]) {
      const before = (await s.users.get("acme", userId))!;
      expect((await withTrailEvent(s, "acme", userId, () => patchUser([{ op, path, value: "x" }])())).status).toBe(200);
      const after = (await s.users.get("acme", userId))!;
      expect([after.body, after.version]).toEqual([before.body, before.version]);
      await waitTrail(s, "acme", userId, (e) => !!e.ignored?.includes(path));
      if (op !== "remove") await refused(() => request(s.app).patch(`/scim/v2/globex/Users/${strictUserId}`).set(s.auth("globex")).send({ schemas: [PATCH], Operations: [{ op, path, value: "x" }] }), "invalidPath");
    }
  });

  it.each(malformed)("should answer add/replace/remove on User path %j with 400 invalidPath, store unchanged", async (path) => {
    for (const op of ["add", "replace"]) await refused(patchUser([{ op, path, value: "x" }]), "invalidPath");
    await expectUnchanged(s.redis, s.prefix, async () => {
      const res = await patchUser([{ op: "remove", path }])();
      // removing something absent may be a no-op or an error; never a 5xx
      if (res.status !== 200) expectScimError(res, 400, res.body.scimType);
    });
  });

  it.each(["favouriteColour", "members.frobnicate", "owner", "displayName.x", `${ENT}:department`])(
    "should ignore add/replace on Group path %j (the group unchanged), and refuse it with 400 invalidPath in a strict directory", async (path) => {
      for (const op of ["add", "replace"]) {
        const before = (await s.groups.get("acme", groupId, false))!;
        expect((await withTrailEvent(s, "acme", groupId, () => patchGroup([{ op, path, value: [{ value: userId }] }])(), "group")).status).toBe(204);
        const after = (await s.groups.get("acme", groupId, false))!;
        expect([after.body, after.version]).toEqual([before.body, before.version]);
        await waitTrail(s, "acme", groupId, (e) => !!e.ignored?.includes(path), 5000, "group");
        await refused(() => request(s.app).patch(`/scim/v2/globex/Groups/${strictGroupId}`).set(s.auth("globex")).send({ schemas: [PATCH], Operations: [{ op, path, value: [{ value: userId }] }] }), "invalidPath");
      }
    },
  );

  it.each(["members[value eq", "members[frobnicate eq \"x\"].value"])(
    "should answer add/replace on Group path %j with 400, store unchanged", async (path) => {
      for (const op of ["add", "replace"]) {
        await expectUnchanged(s.redis, s.prefix, async () => {
          const res = await patchGroup([{ op, path, value: [{ value: userId }] }])();
          expectScimError(res, 400, res.body.scimType);
          expect(["invalidPath", "invalidValue", "invalidFilter", "noTarget"]).toContain(res.body.scimType);
        });
      }
    },
  );

  it("should leave the store unchanged when a later operation fails (all or nothing)", async () => {
    await refused(() => request(s.app).patch(`/scim/v2/globex/Users/${strictUserId}`).set(s.auth("globex")).send({ schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Changed" }, { op: "replace", path: "favouriteColour", value: "x" }] }), "invalidPath");
    await refused(patchGroup([{ op: "replace", path: "displayName", value: "Changed" }, { op: "add", path: "members", value: [{ display: "no value" }] }]), "invalidValue");
  });

  it("should answer an op that needs a path without one with 400 noTarget / invalidValue", async () => {
    await refused(patchUser([{ op: "remove" }]), "noTarget");
    await refused(patchGroup([{ op: "remove" }]), "noTarget");
    await refused(patchUser([{ op: "add", value: "x" }]), "invalidValue");
    await refused(patchUser([{ op: "replace", path: "displayName" }]), "invalidValue");
  });
});

describe("PATCH values of the wrong type", () => {
  const cases: Array<[string, unknown]> = [
    ["active", { a: 1 }], ["active", "maybe"], ["active", [true, false]], ["userName", 5], ["userName", null], ["userName", ["a"]],
    ["name", 5], ["name", "Alice"], ["name.givenName", { x: 1 }], ["emails", "x"], ["emails", [1, 2]], ["emails", [{ value: 5 }]],
    ['emails[type eq "work"].value', { a: 1 }], [`${ENT}:manager`, 5], [`${ENT}:manager`, [1]], [`${ENT}:department`, { a: 1 }], ["displayName", ["a", "b"]],
  ];
  it.each(cases.map(([p, v]) => [p, JSON.stringify(v), v]))("should refuse replace %s = %s with 400 invalidValue", async (path, _label, value) => {
    await refused(patchUser([{ op: "replace", path, value }]), "invalidValue");
  });

  it("should refuse no-path values that are not objects, and attribute objects of the wrong type", async () => {
    for (const value of ["x", 5, [1], null, true]) await refused(patchUser([{ op: "replace", value }]), "invalidValue");
    await refused(patchUser([{ op: "replace", value: { active: { x: 1 } } }]), "invalidValue");
    await refused(patchUser([{ op: "add", value: { "name.givenName": 5 } }]), "invalidValue");
  });

  it("should refuse malformed PatchOp envelopes with 400 invalidSyntax", async () => {
    for (const body of [{ Operations: {} }, { Operations: "add" }, { Operations: [1] }, { Operations: [null] }, { Operations: [[]] }, { Operations: [{ op: 5, path: "title", value: "x" }] },
      { Operations: [{ op: "move", path: "title", value: "x" }] }, { Operations: [{ op: "", path: "title" }] }, { schemas: "x", Operations: [] }, { schemas: [USER], Operations: [] }]) {
      await refused(() => request(s.app).patch(`${U}/${userId}`).set(s.auth()).send(body), "invalidSyntax");
      await refused(() => request(s.app).patch(`${G}/${groupId}`).set(s.auth()).send(body), "invalidSyntax");
    }
    for (const path of [5, {}, [], true, ""]) await refused(patchUser([{ op: "replace", path, value: "x" }]), "invalidPath");
  });

  it("should refuse an op that is not a string with 400 invalidSyntax, never a 500", async () => {
    // found by test/security/property.test.ts (seed -559816379): String() of {"toString": false} throws
    for (const op of [{ toString: false }, { valueOf: 1, toString: 2 }, ["add"], { op: "add" }, null, true]) {
      const body = { Operations: [{ op, path: "title", value: "x" }] };
      await refused(() => request(s.app).patch(`${U}/${userId}`).set(s.auth()).send(body), "invalidSyntax");
      await refused(() => request(s.app).patch(`${G}/${groupId}`).set(s.auth()).send({ Operations: [{ op, path: "displayName", value: "x" }] }), "invalidSyntax");
    }
  });
});

describe("group member lists with values that are not ids", () => {
  // a bare string ("x", ["x"]) is an id that does not exist, not a malformed list (stale-members.test.ts)
  const bad: unknown[] = [[{ value: 5 }], [{ value: null }], [{ value: ["x"] }], [{ value: { $ref: "x" } }], [{ value: "" }], [1, 2], [null], 5, true, [[{ value: "x" }]], [{ display: "no value" }]];

  it.each(bad.map((v) => [JSON.stringify(v), v]))("should refuse members %s with 400 invalidValue in POST, PUT and PATCH", async (_label, members) => {
    await refused(() => request(s.app).post(G).set(s.auth()).send({ displayName: "Bad members", members }), "invalidValue");
    await refused(() => request(s.app).put(`${G}/${groupId}`).set(s.auth()).send({ displayName: "Admins", members }), "invalidValue");
    for (const op of ["add", "replace", "remove"]) await refused(patchGroup([{ op, path: "members", value: members }]), "invalidValue");
  });

  it("should never take ids that are not a user or group of this directory, nor the group itself, as members", async () => {
    const members = async (id: string) => ((await request(s.app).get(`${G}/${id}`).set(s.auth())).body.members ?? []).map((m: { value: string }) => m.value);
    for (const value of ["nobody", `${userId} `, userId.toUpperCase(), "../u:x", "*", "u:" + userId, `{acme}:u:${userId}`]) {
      expect((await patchGroup([{ op: "add", path: "members", value: [{ value }] }])()).status).toBe(204);
      expect((await patchGroup([{ op: "replace", path: "members", value: [{ value: userId }, { value }] }])()).status).toBe(204);
      expect(await members(groupId)).toEqual([userId]);
      const created = await request(s.app).post(G).set(s.auth()).send({ displayName: "Strangers", members: [{ value }] });
      expect(created.status).toBe(201);
      expect(await members(created.body.id)).toEqual([]);
      await request(s.app).delete(`${G}/${created.body.id}`).set(s.auth());
    }
    expect((await patchGroup([{ op: "add", path: "members", value: [{ value: groupId }] }])()).status).toBe(204); // itself
    expect(await members(groupId)).toEqual([userId]);
  });
});

describe("odd conditional headers", () => {
  it("should answer If-Match values that name no current version with 412, and change nothing", async () => {
    for (const tag of ['W/"99999999999999999999"', '"-1"', 'W/"1.5"', "garbage", '"1e3"', `${'"98",'.repeat(500)}"99"`, 'W/""', ","]) {
      for (const [req, kind] of [
        [() => request(s.app).patch(`${U}/${userId}`).set(s.auth()).set("If-Match", tag).send({ Operations: [{ op: "replace", path: "title", value: "x" }] }), "user PATCH"],
        [() => request(s.app).put(`${G}/${groupId}`).set(s.auth()).set("If-Match", tag).send({ displayName: "Admins" }), "group PUT"],
        [() => request(s.app).delete(`${U}/${userId}`).set(s.auth()).set("If-Match", tag), "user DELETE"],
      ] as const) {
        await expectUnchanged(s.redis, s.prefix, async () => {
          const res = await req();
          if (res.status !== 412) throw new Error(`${kind} with If-Match ${tag.slice(0, 40)}: ${res.status} ${res.text.slice(0, 200)}`);
          expectScimError(res, 412);
        });
      }
    }
  });

  it("should answer odd If-None-Match values on GET with 200 or 304, never an error", async () => {
    for (const tag of ['W/"99999999999999999999"', "garbage", "*", 'W/"1", *', ""]) {
      const res = await request(s.app).get(`${U}/${userId}`).set(s.auth()).set("If-None-Match", tag);
      expect([tag, [200, 304].includes(res.status)]).toEqual([tag, true]);
    }
  });
});
