/**
 * A group's member limit (scim.maxGroupMembers, here 3) and member removes, through the SCIM API.
 * writeGroup-19.lua reads the entries of the values a request adds, not of those it removes: HDEL answers
 * how many it removed. So the limit counts a request's removes only when its joins alone would pass it,
 * and a remove that names no member is a no-op. Each case checks that a refused request changes nothing.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { SyncStateKeys } from "../../src/sync/state/sync-state-keys";

let s: TestScim;
const G = "/scim/v2/acme/Groups";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
let u: string[] = [];

beforeAll(async () => {
  s = await startScim({ scim: { maxGroupMembers: 3 } });
  u = [];
  for (let i = 0; i < 6; i++) u.push((await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody(`limit.${i}`))).body.id);
});
afterAll(async () => s.close());

const api = () => request(s.app);
const patch = (id: string, Operations: unknown[]) => api().patch(`${G}/${id}`).set(s.auth()).send({ schemas: [PATCH], Operations });
async function group(name: string, members: string[]) {
  const res = await api().post(G).set(s.auth()).send({ displayName: name, members: members.map((value) => ({ value })) });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}
/** The group's member ids (sorted) and version. */
async function state(id: string): Promise<{ members: string[]; version: string }> {
  const res = await api().get(`${G}/${id}`).set(s.auth());
  return { members: (res.body.members ?? []).map((m: { value: string }) => m.value).sort(), version: res.body.meta.version };
}
const outboxLength = () => s.redis.xlen(s.users.keys("acme").outbox);

describe("scim.maxGroupMembers", () => {
  it("should refuse a new group with more members than the limit (400 invalidValue), and store nothing", async () => {
    const before = await s.groups.count("acme");
    expectScimError(await api().post(G).set(s.auth()).send({ displayName: "Too Big", members: u.slice(0, 4).map((value) => ({ value })) }), 400, "invalidValue");
    expect(await s.groups.count("acme")).toBe(before);
  });

  it("should refuse a PATCH that adds past the limit, and change nothing", async () => {
    const g = await group("At Limit", u.slice(0, 3));
    const before = await state(g.id);
    const outbox = await outboxLength();
    expectScimError(await patch(g.id, [{ op: "add", path: "members", value: [{ value: u[3] }] }]), 400, "invalidValue");
    expect(await state(g.id)).toEqual(before);
    expect(await outboxLength()).toBe(outbox);
  });

  it("should take a PATCH at the limit whose removes make room for its adds, in either order", async () => {
    const g = await group("Swap", u.slice(0, 3));
    expect((await patch(g.id, [
      { op: "add", path: "members", value: [{ value: u[3] }] },
      { op: "remove", path: "members", value: [{ value: u[0] }] },
    ])).status).toBe(204);
    expect((await state(g.id)).members).toEqual([u[1], u[2], u[3]].sort());
    expect((await patch(g.id, [
      { op: "remove", path: `members[value eq "${u[1]}"]` },
      { op: "add", path: "members", value: [{ value: u[4] }] },
    ])).status).toBe(204);
    expect((await state(g.id)).members).toEqual([u[2], u[3], u[4]].sort());
  });

  it("should refuse a PATCH at the limit whose removes name no member, and change nothing", async () => {
    const g = await group("No Room", u.slice(0, 3));
    const before = await state(g.id);
    const res = await patch(g.id, [
      { op: "remove", path: "members", value: [{ value: u[5] }, { value: "never-a-member" }] },
      { op: "add", path: "members", value: [{ value: u[4] }] },
    ]);
    expectScimError(res, 400, "invalidValue");
    expect(await state(g.id)).toEqual(before);
  });
});

describe("member removes", () => {
  it("should treat a remove that names no member as a no-op: same version, nothing for the sync", async () => {
    const g = await group("Nothing To Remove", [u[0]]);
    const before = await state(g.id);
    const outbox = await outboxLength();
    expect((await patch(g.id, [{ op: "remove", path: "members", value: [{ value: u[1] }, { value: "never-a-member" }] }])).status).toBe(204);
    expect(await state(g.id)).toEqual(before);
    expect(await outboxLength()).toBe(outbox);
    // the members waiting for the group's reconcile: the create's, not the values the remove named
    expect(await s.redis.hkeys(new SyncStateKeys(s.prefix, "acme").changedMembers(g.id))).toEqual([u[0]]);
  });

  it("should remove the members a remove names beside non-members, and count the group right after", async () => {
    const g = await group("Some To Remove", u.slice(0, 3));
    const before = await state(g.id);
    expect((await patch(g.id, [{ op: "remove", path: "members", value: [{ value: u[0] }, { value: u[5] }, { value: "never-a-member" }] }])).status).toBe(204);
    const after = await state(g.id);
    expect(after.members).toEqual([u[1], u[2]].sort());
    expect(after.version).not.toBe(before.version);
    // the count the limit uses is right: two joins fit (3 with one), a third does not
    expect((await patch(g.id, [{ op: "add", path: "members", value: [{ value: u[3] }] }])).status).toBe(204);
    expectScimError(await patch(g.id, [{ op: "add", path: "members", value: [{ value: u[4] }] }]), 400, "invalidValue");
    expect((await state(g.id)).members).toEqual([u[1], u[2], u[3]].sort());
  });
});
