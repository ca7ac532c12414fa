import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { waitTrail } from "../helpers/activity-wait";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
const G = "/scim/v2/acme/Groups";
const U = "/scim/v2/acme/Users";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
let users: string[] = [];

beforeAll(async () => {
  s = await startScim();
  users = [];
  for (let i = 0; i < 6; i++) users.push((await request(s.app).post(U).set(s.auth()).send(userBody(`member.${i}`))).body.id);
});
afterAll(async () => s.close());

const api = () => request(s.app);
async function group(name: string, members: string[] = []) {
  const res = await api().post(G).set(s.auth()).send({ displayName: name, members: members.map((value) => ({ value })) });
  expect(res.status).toBe(201);
  return res.body as { id: string; meta: { version: string } };
}
async function memberIds(id: string): Promise<string[]> {
  const res = await api().get(`${G}/${id}`).set(s.auth());
  return (res.body.members ?? []).map((m: { value: string }) => m.value).sort();
}
const patch = (id: string, Operations: unknown[], q = "") => api().patch(`${G}/${id}${q}`).set(s.auth()).send({ schemas: [PATCH], Operations });

describe("POST /Groups", () => {
  it("should create a group with members and $ref/type on each member", async () => {
    const g = await group("Engineering", users.slice(0, 2));
    const res = await api().get(`${G}/${g.id}`).set(s.auth());
    expect(res.body.members).toEqual(expect.arrayContaining([
      { value: users[0], $ref: `https://bridge.example.com/scim/v2/acme/Users/${users[0]}`, type: "User" },
    ]));
    expect(res.body.members).toHaveLength(2);
  });

  it("should create a second group with the same displayName and externalId (RFC 7643 §4.2: uniqueness none) and find both", async () => {
    const one = await group("Shared Name");
    const res = await api().post(G).set(s.auth()).send({ displayName: "shared NAME", externalId: "GX-1" });
    expect(res.status).toBe(201);
    const three = await api().post(G).set(s.auth()).send({ displayName: "Third", externalId: "GX-1" });
    expect(three.status).toBe(201);
    const ids = async (filter: string) => ((await api().get(`${G}?filter=${encodeURIComponent(filter)}`).set(s.auth())).body.Resources as Array<{ id: string }>)
      .map((r) => r.id).sort();
    expect(await ids(`displayName eq "Shared Name"`)).toEqual([one.id, res.body.id].sort());
    expect(await ids(`externalId eq "GX-1"`)).toEqual([res.body.id, three.body.id].sort());
    // a rename moves the group between index values; a delete removes it
    expect((await patch(one.id, [{ op: "replace", path: "displayName", value: "Renamed" }])).status).toBe(204);
    expect(await ids(`displayName eq "shared name"`)).toEqual([res.body.id]);
    expect(await ids(`displayName eq "renamed"`)).toEqual([one.id]);
    expect((await api().delete(`${G}/${three.body.id}`).set(s.auth())).status).toBe(204);
    expect(await ids(`externalId eq "GX-1"`)).toEqual([res.body.id]);
  });

  it("should leave out a member that is not a user or group of this directory (strict directories refuse it: stale-members.test.ts)", async () => {
    const res = await api().post(G).set(s.auth()).send({ displayName: "Bad Members", members: [{ value: "ghost" }] });
    expect(res.status).toBe(201);
    expect(await memberIds(res.body.id)).toEqual([]);
  });
});

describe("PATCH /Groups/:id", () => {
  it("should add and remove members in one request and answer 204 (O8, E12)", async () => {
    const g = await group("Mixed Ops", users.slice(0, 2));
    const res = await patch(g.id, [
      { op: "remove", path: `members[value eq "${users[0]}"]` },
      { op: "add", path: "members", value: [{ value: users[2], display: "member.2" }] },
    ]);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await memberIds(g.id)).toEqual([users[1], users[2]].sort());
  });

  it("should remove members given as a value array (Entra without the flag, E7)", async () => {
    const g = await group("Azure Remove", users.slice(0, 3));
    expect((await patch(g.id, [{ op: "Remove", path: "members", value: [{ value: users[1] }] }])).status).toBe(204);
    expect(await memberIds(g.id)).toEqual([users[0], users[2]].sort());
  });

  it("should replace the whole member list (O8 replace)", async () => {
    const g = await group("Replace All", users.slice(0, 3));
    await patch(g.id, [{ op: "replace", path: "members", value: [{ value: users[4] }, { value: users[5] }] }]);
    expect(await memberIds(g.id)).toEqual([users[4], users[5]].sort());
  });

  it("should rename with a plain string value (E8) and return the group when attributes are asked for", async () => {
    const g = await group("Old Name");
    const res = await patch(g.id, [{ op: "Replace", path: "displayName", value: "New Name" }], "?excludedAttributes=members");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: g.id, displayName: "New Name" });
    expect(res.body.members).toBeUndefined();
    const byName = await api().get(`${G}?filter=displayName eq "new name"&excludedAttributes=members`).set(s.auth());
    expect(byName.body.totalResults).toBe(1);
    await group("Old Name"); // the old name is free again
  });

  it("should cost nothing for Okta's group-name PATCH when nothing changed (O9)", async () => {
    const g = await group("Okta Pushed", [users[0]]);
    const outboxBefore = await s.redis.xlen(s.users.keys("acme").outbox);
    const res = await patch(g.id, [{ op: "replace", value: { id: g.id, displayName: "Okta Pushed" } }]);
    expect(res.status).toBe(204);
    expect((await api().get(`${G}/${g.id}`).set(s.auth())).body.meta.version).toBe(g.meta.version);
    expect(await s.redis.xlen(s.users.keys("acme").outbox)).toBe(outboxBefore);
  });

  it("should accept an empty Operations list as a no-op (E19)", async () => {
    const g = await group("Empty Ops");
    expect((await patch(g.id, [])).status).toBe(204);
  });

  it("should ignore a path a Group does not have and apply the rest ([RFC7644§3.3]), naming it in the trail", async () => {
    const g = await group("Bad Path", [users[0]]);
    const res = await patch(g.id, [{ op: "add", path: "members", value: [{ value: users[1] }] }, { op: "replace", path: "favouriteColour", value: "red" }]);
    expect(res.status).toBe(204);
    expect((await memberIds(g.id)).sort()).toEqual([users[0], users[1]].sort());
    await waitTrail(s, "acme", g.id, (e) => e.method === "PATCH" && JSON.stringify(e.ignored) === JSON.stringify(["favouriteColour"]), 5000, "group");
  });

  it("should refuse a path a Group does not have in a strict directory (400 invalidPath), and change nothing", async () => {
    const strict = await startScim({}, { acme: { strict: true } });
    try {
      const g = (await request(strict.app).post("/scim/v2/acme/Groups").set(strict.auth()).send({ displayName: "Strict Bad Path" })).body.id as string;
      const res = await request(strict.app).patch(`/scim/v2/acme/Groups/${g}`).set(strict.auth()).send({ Operations: [{ op: "replace", path: "displayName", value: "Changed" }, { op: "replace", path: "favouriteColour", value: "red" }] });
      expectScimError(res, 400, "invalidPath");
      expect((await strict.groups.get("acme", g, false))!.body.displayName).toBe("Strict Bad Path");
      expectScimError(await request(strict.app).post("/scim/v2/acme/Groups").set(strict.auth()).send({ displayName: "Strict Body", favouriteColour: "red" }), 400, "invalidSyntax");
    } finally {
      await strict.close();
    }
  });

  it("should refuse a member item that names no sub-attribute of members (400 invalidPath), and take one that names one beside unknown keys", async () => {
    const g = await group("Sub Attributes", [users[0]]);
    const res = await patch(g.id, [{ op: "add", path: "members", value: [{ value: users[1] }, { frobnicate: users[2] }] }]);
    expectScimError(res, 400, "invalidPath");
    expect(res.body.detail).toContain("'frobnicate' is not a sub-attribute of 'members'");
    expect(await memberIds(g.id)).toEqual([users[0]]);
    // the known key need not come first, nor be in the schema's case for the check (SCIMMY matches attribute names case-insensitively)
    expect((await patch(g.id, [{ op: "add", path: "members", value: [{ frobnicate: 1, value: users[1] }, { Display: "x", value: users[2] }] }])).status).toBe(204);
    expect(await memberIds(g.id)).toEqual([users[0], users[1], users[2]].sort());
  });

  it("should answer 404 for an unknown group and 412 for a stale If-Match", async () => {
    expectScimError(await patch("nope", [{ op: "add", path: "members", value: [{ value: users[0] }] }]), 404);
    const g = await group("Versioned");
    await patch(g.id, [{ op: "add", path: "members", value: [{ value: users[0] }] }]);
    const stale = await api().patch(`${G}/${g.id}`).set(s.auth()).set("If-Match", g.meta.version)
      .send({ schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: users[1] }] }] });
    expectScimError(stale, 412);
    expect(await memberIds(g.id)).toEqual([users[0]]);
  });

  it("should lose no member when 20 PATCHes add different members concurrently", async () => {
    const extra: string[] = [];
    for (let i = 0; i < 20; i++) extra.push((await api().post(U).set(s.auth()).send(userBody(`concurrent.${i}`))).body.id);
    const g = await group("Concurrent");
    const results = await Promise.all(extra.map((value) => patch(g.id, [{ op: "add", path: "members", value: [{ value }] }])));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(204));
    expect(await memberIds(g.id)).toEqual([...extra].sort());
    expect((await api().get(`${G}/${g.id}`).set(s.auth())).body.meta.version).toBe("W/\"21\"");
  });

  it("should lose no update when member PATCHes race a rename", async () => {
    const g = await group("Race Rename");
    const ops = users.map((value) => patch(g.id, [{ op: "add", path: "members", value: [{ value }] }]));
    ops.push(patch(g.id, [{ op: "replace", path: "displayName", value: "Race Renamed" }]));
    await Promise.all(ops);
    const res = await api().get(`${G}/${g.id}`).set(s.auth());
    expect(res.body.displayName).toBe("Race Renamed");
    expect(res.body.members).toHaveLength(users.length);
  });
});

describe("PUT /Groups/:id", () => {
  it("should replace memberships when members are sent and keep them when not (O11)", async () => {
    const g = await group("Put Group", users.slice(0, 2));
    await api().put(`${G}/${g.id}`).set(s.auth()).send({ displayName: "Put Group", members: [{ value: users[3] }] });
    expect(await memberIds(g.id)).toEqual([users[3]]);
    const renamed = await api().put(`${G}/${g.id}`).set(s.auth()).send({ displayName: "Put Group 2" });
    expect(renamed.body.displayName).toBe("Put Group 2");
    expect(await memberIds(g.id)).toEqual([users[3]]);
  });
});

describe("memberships and users", () => {
  it("should show a user's groups, find groups by members.value, and drop memberships when the user is deleted", async () => {
    const temp = (await api().post(U).set(s.auth()).send(userBody("leaves.soon"))).body.id;
    const a = await group("Has Temp A", [temp]);
    const b = await group("Has Temp B", [temp, users[0]]);
    const u = await api().get(`${U}/${temp}`).set(s.auth());
    expect(u.body.groups.map((x: { display: string }) => x.display).sort()).toEqual(["Has Temp A", "Has Temp B"]);
    const byMember = await api().get(`${G}?filter=members.value eq "${temp}"&excludedAttributes=members`).set(s.auth());
    expect(byMember.body.Resources.map((r: { id: string }) => r.id).sort()).toEqual([a.id, b.id].sort());
    await api().delete(`${U}/${temp}`).set(s.auth());
    expect(await memberIds(a.id)).toEqual([]);
    expect(await memberIds(b.id)).toEqual([users[0]]);
  });

  it("should never take a deleted user as a new member", async () => {
    const gone = (await api().post(U).set(s.auth()).send(userBody("deleted.before.join"))).body.id;
    expect((await api().delete(`${U}/${gone}`).set(s.auth())).status).toBe(204);
    const g = await group("No Ghosts", [users[1]]);
    expect((await patch(g.id, [{ op: "add", path: "members", value: [{ value: gone }] }])).status).toBe(204);
    const either = await api().post(G).set(s.auth()).send({ displayName: "No Ghosts Either", members: [{ value: gone }] });
    expect(either.status).toBe(201);
    expect(await memberIds(either.body.id)).toEqual([]);
    expect(await memberIds(g.id)).toEqual([users[1]]);
  });

  it("should take a user its id set does not hold (a directory of an earlier release) as a member, and then hold it", async () => {
    const ids = s.users.keys("acme").userIds;
    const old = (await api().post(U).set(s.auth()).send(userBody("earlier.release"))).body.id;
    const g = await group("Earlier Release");
    // as an earlier release left it: the user's record without its id in the set
    await s.redis.srem(ids, old);
    // a refused write adds nothing to the set
    await expect(s.groups.write("acme", g.id, { mode: "update", memberOps: [{ op: "add", members: [{ value: old }, { value: "ghost" }] }] })).rejects.toThrow("ghost");
    expect(await s.redis.sismember(ids, old)).toBe(0);
    expect((await patch(g.id, [{ op: "add", path: "members", value: [{ value: old }, { value: users[2] }] }])).status).toBe(204);
    expect(await memberIds(g.id)).toEqual([old, users[2]].sort());
    expect(await s.redis.sismember(ids, old)).toBe(1);
  });

  it("should take users and a group in one PATCH, each with its own type", async () => {
    const inner = await group("Inner Team");
    const outer = await group("Outer Team");
    expect((await patch(outer.id, [{ op: "add", path: "members", value: [{ value: users[3] }, { value: inner.id }, { value: users[4] }] }])).status).toBe(204);
    const res = await api().get(`${G}/${outer.id}`).set(s.auth());
    const types = Object.fromEntries((res.body.members as Array<{ value: string; type: string }>).map((m) => [m.value, m.type]));
    expect(types).toEqual({ [users[3]]: "User", [inner.id]: "Group", [users[4]]: "User" });
  });

  it("should delete a group (O10) and remove it from its members' groups", async () => {
    const g = await group("Doomed", [users[5]]);
    expect((await api().delete(`${G}/${g.id}`).set(s.auth())).status).toBe(204);
    const u = await api().get(`${U}/${users[5]}`).set(s.auth());
    expect((u.body.groups ?? []).map((x: { value: string }) => x.value)).not.toContain(g.id);
    expectScimError(await api().get(`${G}/${g.id}`).set(s.auth()), 404);
  });
});

describe("a group of 50,000 members", () => {
  const N = 50000;
  let big: string;
  let ids: string[];

  beforeAll(async () => {
    ids = Array.from({ length: N + 256 }, (_, i) => `bulk-${i}`);
    for (let i = 0; i < ids.length; i += 1000) {
      await Promise.all(ids.slice(i, i + 1000).map((id) => s.users.write("acme", id, { userName: id }, "create")));
    }
    big = (await group("Everyone")).id;
    for (let i = 0; i < N; i += 5000) {
      const res = await patch(big, [{ op: "add", path: "members", value: ids.slice(i, i + 5000).map((value) => ({ value })) }]);
      expect(res.status).toBe(204);
    }
  }, 120000);

  it("should apply a 256-member PATCH as a delta without loading the group's members", async () => {
    const load = jest.spyOn(s.groups, "find");
    const members = jest.spyOn(s.groups, "memberValues");
    const res = await patch(big, [{ op: "add", path: "members", value: ids.slice(N, N + 256).map((value) => ({ value })) }]);
    expect(res.status).toBe(204);
    expect(load).not.toHaveBeenCalled();
    expect(members).not.toHaveBeenCalled();
    expect(await s.redis.hlen(s.groups.keys("acme").groupMembers(big))).toBe(N + 256);
    load.mockRestore();
    members.mockRestore();
  });

  it("should never load members for excludedAttributes=members (E9)", async () => {
    const load = jest.spyOn(s.groups, "find");
    const res = await api().get(`${G}?excludedAttributes=members&filter=displayName eq "Everyone"`).set(s.auth());
    expect(res.body.Resources[0].members).toBeUndefined();
    const single = await api().get(`${G}/${big}?excludedAttributes=members`).set(s.auth());
    expect(single.body.displayName).toBe("Everyone");
    expect(load.mock.calls.every((call) => call[3] === false)).toBe(true);
    load.mockRestore();
  });

  it("should remove one member by filter without touching the rest", async () => {
    const res = await patch(big, [{ op: "remove", path: `members[value eq "${ids[7]}"]` }]);
    expect(res.status).toBe(204);
    expect(await s.redis.hexists(s.groups.keys("acme").groupMembers(big), ids[7])).toBe(0);
    expect(await s.redis.hlen(s.groups.keys("acme").groupMembers(big))).toBe(N + 255);
  });
});
