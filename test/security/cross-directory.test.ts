/**
 * Cross-directory isolation: a token of directory globex on acme's URL gets, on every endpoint and
 * method of the SCIM surface, the same 401 as on a directory that does not exist, and changes nothing;
 * inside globex, acme's ids are as unknown as random ones.
 */
import request from "supertest";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged, snapshotRedis } from "../helpers/redis-snapshot";

let s: TestScim;
const acme = { user: "", group: "" };
const globex = { user: "", group: "" };
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
/** Failed authentications leave counters (<prefix>:authfail:<address>); the directories' data must not change. */
const AUTHFAIL = /:authfail:/;

beforeAll(async () => {
  s = await startScim({ auth: { maxFailures: 100000, windowSeconds: 60 } });
  acme.user = (await request(s.app).post("/scim/v2/acme/Users").set(s.auth("acme")).send(userBody("ann@acme.example", { externalId: "acme-ext-1" }))).body.id;
  acme.group = (await request(s.app).post("/scim/v2/acme/Groups").set(s.auth("acme")).send({ displayName: "Acme staff", members: [{ value: acme.user }] })).body.id;
  globex.user = (await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("gil@globex.example"))).body.id;
  globex.group = (await request(s.app).post("/scim/v2/globex/Groups").set(s.auth("globex")).send({ displayName: "Globex staff" })).body.id;
});
afterAll(async () => s.close());

type Call = [method: string, path: string, body?: unknown];

/** Every endpoint and method of the SCIM surface, with acme's ids where an id goes. */
function surface(): Call[] {
  const patch = { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Taken over" }] };
  const calls: Call[] = [];
  for (const [kind, id, body] of [["Users", acme.user, userBody("ann@acme.example", { displayName: "Taken over" })], ["Groups", acme.group, { displayName: "Taken over", members: [] }]] as const) {
    calls.push(
      ["GET", `/${kind}`], ["GET", `/${kind}?filter=${encodeURIComponent(`id eq "${id}"`)}`], ["POST", `/${kind}`, body], ["POST", `/${kind}/.search`, { filter: `id eq "${id}"` }],
      ["GET", `/${kind}/${id}`], ["HEAD", `/${kind}/${id}`], ["PUT", `/${kind}/${id}`, body], ["PATCH", `/${kind}/${id}`, patch], ["DELETE", `/${kind}/${id}`],
      ["OPTIONS", `/${kind}/${id}`], ["POST", `/${kind}/${id}`, body], ["GET", `/${kind}/${id}/members`],
    );
  }
  calls.push(
    ["GET", "/ServiceProviderConfig"], ["GET", "/ResourceTypes"], ["GET", "/ResourceTypes/User"], ["GET", "/Schemas"], ["GET", `/Schemas/${USER}`],
    ["GET", "/Me"], ["PUT", "/Me", {}], ["PATCH", "/Me", patch], ["DELETE", "/Me"], ["POST", "/Bulk", { schemas: ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"], Operations: [{ method: "DELETE", path: `/Users/${acme.user}` }] }],
    ["GET", "/Widgets"], ["POST", "/Widgets", {}], ["GET", ""], ["GET", "/"],
  );
  return calls;
}

function send(directory: string, [method, path, body]: Call, token: string | undefined): request.Test {
  const req = request(s.app)[method.toLowerCase() as "get"](`/scim/v2/${directory}${path}`);
  if (token !== undefined) req.set("Authorization", token);
  if (body !== undefined) req.set("Content-Type", "application/scim+json").send(JSON.stringify(body));
  return req;
}

/** What a 401 says: status, headers that matter and the body, byte for byte. */
function answer(res: request.Response) {
  return { status: res.status, contentType: res.headers["content-type"], wwwAuthenticate: res.headers["www-authenticate"], length: res.headers["content-length"], text: res.text };
}

describe("another directory's token on acme's URL", () => {
  it("should get, on every endpoint and method, the same 401 as a directory that does not exist, and change no data", async () => {
    const calls = surface();
    expect(calls.length).toBeGreaterThan(35);
    await expectUnchanged(s.redis, s.prefix, async () => {
      for (const call of calls) {
        for (const token of [`Bearer ${TOKENS.globex}`, TOKENS.globex, `bearer   ${TOKENS.globex}`]) {
          const onAcme = await send("acme", call, token);
          const onNowhere = await send("no-such-directory", call, token);
          expect({ call, ...answer(onAcme) }).toEqual({ call, ...answer(onNowhere) });
          if (call[0] !== "HEAD") expectScimError(onAcme, 401);
          expect(onAcme.status).toBe(401);
          expect(onAcme.headers["www-authenticate"]).toMatch(/^Bearer /);
          expect(onAcme.text ?? "").not.toContain(acme.user);
        }
      }
    }, AUTHFAIL);
  });

  it("should get the same 401 without a token, with acme's token on globex, and with a token of a directory that does not exist", async () => {
    const reference = answer(await send("no-such-directory", ["GET", `/Users/${acme.user}`], undefined));
    await expectUnchanged(s.redis, s.prefix, async () => {
      for (const [dir, token] of [["acme", undefined], ["globex", `Bearer ${TOKENS.acme}`], ["acme", "Bearer no-such-token"], ["acme", "Basic YWNtZTphY21l"], ["acme", ""], ["acme", "Bearer"]] as const) {
        for (const call of surface()) {
          const res = await send(dir, call, token);
          expect(res.status).toBe(401);
          if (call[0] === "GET" && call[1] === `/Users/${acme.user}`) expect(answer(res)).toEqual(reference);
        }
      }
    }, AUTHFAIL);
  });

  it("should not let a directory id with odd characters reach another directory's data", async () => {
    for (const dir of ["acme%00", "ACME", "acme/", "%7Bacme%7D", "acme}:u:x", "globex%2F..%2Facme", "..%2Facme"]) {
      const res = await request(s.app).get(`/scim/v2/${dir}/Users/${acme.user}`).set(s.auth("globex"));
      expect([dir, res.status]).toEqual([dir, 401]);
      expect(res.text).not.toContain("ann@acme.example");
    }
  });
});

describe("acme's ids inside globex", () => {
  it("should be unknown to every read and write of globex, and leave acme unchanged", async () => {
    const before = await snapshotRedis(s.redis, `${s.prefix}:{acme}`);
    const g = (r: request.Test) => r.set(s.auth("globex"));
    for (const kind of ["Users", "Groups"]) {
      const id = kind === "Users" ? acme.user : acme.group;
      expectScimError(await g(request(s.app).get(`/scim/v2/globex/${kind}/${id}`)), 404);
      expectScimError(await g(request(s.app).delete(`/scim/v2/globex/${kind}/${id}`)), 404);
      expectScimError(await g(request(s.app).patch(`/scim/v2/globex/${kind}/${id}`)).send({ Operations: [{ op: "replace", path: "displayName", value: "x" }] }), 404);
      expectScimError(await g(request(s.app).put(`/scim/v2/globex/${kind}/${id}`)).send(kind === "Users" ? userBody("ann@acme.example") : { displayName: "Acme staff" }), 404);
      const own = kind === "Users" ? `userName eq "ann@acme.example"` : `members.value eq "${acme.user}"`;
      for (const filter of [`id eq "${id}"`, `externalId eq "acme-ext-1"`, own, `displayName eq "Acme staff"`, "id pr"]) {
        // on the resource endpoint, and at the root (Users and Groups together)
        for (const path of [`/scim/v2/globex/${kind}/.search`, "/scim/v2/globex/.search"]) {
          const res = await g(request(s.app).post(path)).send({ filter });
          expect(res.status).toBe(200);
          expect(res.body.Resources.map((r: { id: string }) => r.id)).not.toContain(id);
          expect(res.text).not.toMatch(/acme/i);
        }
      }
    }
    expect(await snapshotRedis(s.redis, `${s.prefix}:{acme}`)).toEqual(before);
  });

  it("should never take acme's user or group as a member of a globex group (an id that does not exist there)", async () => {
    const ops = (value: string) => ({ schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value }] }] });
    const members = async (id: string) => ((await request(s.app).get(`/scim/v2/globex/Groups/${id}`).set(s.auth("globex"))).body.members ?? [])
      .map((m: { value: string }) => m.value);
    await expectUnchanged(s.redis, `${s.prefix}:{acme}`, async () => {
      for (const value of [acme.user, acme.group]) {
        expect((await request(s.app).patch(`/scim/v2/globex/Groups/${globex.group}`).set(s.auth("globex")).send(ops(value))).status).toBe(204);
        expect(await members(globex.group)).toEqual([]);
        const mixed = await request(s.app).patch(`/scim/v2/globex/Groups/${globex.group}`).set(s.auth("globex"))
          .send({ Operations: [{ op: "add", path: "members", value: [{ value: globex.user }, { value }] }] });
        expect(mixed.status).toBe(204);
        expect(await members(globex.group)).toEqual([globex.user]);
        expect((await request(s.app).patch(`/scim/v2/globex/Groups/${globex.group}`).set(s.auth("globex"))
          .send({ Operations: [{ op: "replace", path: "members", value: [{ value }] }] })).status).toBe(204);
        expect(await members(globex.group)).toEqual([]);
        const poachers = await request(s.app).post("/scim/v2/globex/Groups").set(s.auth("globex")).send({ displayName: "Poachers", members: [{ value }] });
        expect(poachers.status).toBe(201);
        expect(await members(poachers.body.id)).toEqual([]);
        await request(s.app).delete(`/scim/v2/globex/Groups/${poachers.body.id}`).set(s.auth("globex"));
        expect((await request(s.app).put(`/scim/v2/globex/Groups/${globex.group}`).set(s.auth("globex")).send({ displayName: "Globex staff", members: [{ value }] })).status).toBe(200);
        expect(await members(globex.group)).toEqual([]);
      }
    });
    // and a manager reference to acme's user is just a string: it is not resolved against acme
    const res = await request(s.app).patch(`/scim/v2/globex/Users/${globex.user}`).set(s.auth("globex"))
      .send({ Operations: [{ op: "add", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager", value: acme.user }] });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain("ann@acme.example");
  });

  it("should keep acme's user out of globex's member lists and groups", async () => {
    const group = await request(s.app).get(`/scim/v2/globex/Groups/${globex.group}`).set(s.auth("globex"));
    expect(group.body.members ?? []).toEqual([]);
    const user = await request(s.app).get(`/scim/v2/acme/Users/${acme.user}`).set(s.auth("acme"));
    expect(user.body.groups).toEqual([expect.objectContaining({ value: acme.group })]);
  });
});
