/**
 * Group writes whose members name ids that do not exist (IDP-DIALECTS O16: Okta pushes up to 256 members
 * and keeps the id of a user removed through another path): a lenient directory (the default) applies the
 * members that exist, answers 2xx and records the skipped ids on the group's activity trail; a strict
 * directory (`strict: true`) refuses the whole write with 400 invalidValue and changes nothing.
 */
import request from "supertest";
import { hashToken } from "../../src/auth/token";
import { ActivityStore } from "../../src/activity/activity-store";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
let activity: ActivityStore;
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const base = (dir: string) => `/scim/v2/${dir}`;
const live: Record<string, string[]> = { acme: [], globex: [] };
const gone: Record<string, string> = {};

function dir(id: "acme" | "globex", strict: boolean) {
  return { id, strict, tokenHashes: [hashToken(TOKENS[id])], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } };
}

beforeAll(async () => {
  // acme is lenient (the default), globex strict
  s = await startScim({ directories: [dir("acme", false), dir("globex", true)] });
  activity = new ActivityStore(s.redis, s.prefix);
  for (const d of ["acme", "globex"] as const) {
    for (let i = 0; i < 3; i++) live[d].push((await request(s.app).post(`${base(d)}/Users`).set(s.auth(d)).send(userBody(`${d}.live.${i}`))).body.id);
    gone[d] = (await request(s.app).post(`${base(d)}/Users`).set(s.auth(d)).send(userBody(`${d}.gone`))).body.id;
    expect((await request(s.app).delete(`${base(d)}/Users/${gone[d]}`).set(s.auth(d))).status).toBe(204);
  }
});
afterAll(async () => s.close());

const api = () => request(s.app);
async function group(d: "acme" | "globex", name: string, members: string[] = []): Promise<string> {
  const res = await api().post(`${base(d)}/Groups`).set(s.auth(d)).send({ displayName: name, members: members.map((value) => ({ value })) });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function memberIds(d: string, id: string): Promise<string[]> {
  const res = await api().get(`${base(d)}/Groups/${id}`).set(s.auth(d as "acme"));
  return (res.body.members ?? []).map((m: { value: string }) => m.value).sort();
}
const patch = (d: "acme" | "globex", id: string, Operations: unknown[]) =>
  api().patch(`${base(d)}/Groups/${id}`).set(s.auth(d)).send({ schemas: [PATCH], Operations });
/** The trail notes of skipped members of group `id`, once one of them names `value` (appends are batched: wait, within bounds). */
async function skippedNote(id: string, value: string): Promise<string> {
  let notes: string[] = [];
  for (let i = 0; i < 500; i++) {
    notes = (await activity.read("acme", "group", id)).map((e) => e.message ?? "").filter((m) => m.startsWith("skipped"));
    const hit = notes.find((m) => m.includes(value));
    if (hit) return hit;
    await new Promise((r) => setImmediate(r));
  }
  return notes.join("\n");
}

describe("a lenient directory", () => {
  it("should apply the members that exist in a PATCH add, answer 204 and record every skipped id", async () => {
    const g = await group("acme", "Stale Add", [live.acme[0]]);
    const res = await patch("acme", g, [{ op: "add", path: "members", value: [{ value: live.acme[1] }, { value: gone.acme }, { value: "never-was" }, { value: g }] }]);
    expect(res.status).toBe(204);
    expect(await memberIds("acme", g)).toEqual([live.acme[0], live.acme[1]].sort());
    const note = await skippedNote(g, "never-was");
    expect(note).toContain("skipped 3 member id(s)");
    for (const v of [gone.acme, "never-was", g]) expect(note).toContain(v);
  });

  it("should apply a full replace without the ids that do not exist", async () => {
    const g = await group("acme", "Stale Replace", [live.acme[0]]);
    expect((await patch("acme", g, [{ op: "replace", path: "members", value: [{ value: gone.acme }, { value: live.acme[2] }] }])).status).toBe(204);
    expect(await memberIds("acme", g)).toEqual([live.acme[2]]);
  });

  it("should record a PATCH whose only member is stale although it changes nothing", async () => {
    const g = await group("acme", "Only Stale");
    expect((await patch("acme", g, [{ op: "add", path: "members", value: [{ value: gone.acme }] }])).status).toBe(204);
    expect(await memberIds("acme", g)).toEqual([]);
    expect(await skippedNote(g, gone.acme)).toContain(gone.acme);
  });

  it("should create (POST) and replace (PUT) a group with the members that exist", async () => {
    const res = await api().post(`${base("acme")}/Groups`).set(s.auth()).send({ displayName: "Stale Post", members: [{ value: gone.acme }, { value: live.acme[0] }] });
    expect(res.status).toBe(201);
    expect(res.body.members.map((m: { value: string }) => m.value)).toEqual([live.acme[0]]);
    expect(await skippedNote(res.body.id, gone.acme)).toContain(gone.acme);
    const put = await api().put(`${base("acme")}/Groups/${res.body.id}`).set(s.auth()).send({ displayName: "Stale Post", members: [{ value: live.acme[1] }, { value: "ghost" }] });
    expect(put.status).toBe(200);
    expect(put.body.members.map((m: { value: string }) => m.value)).toEqual([live.acme[1]]);
  });

  it("should take a bare string member value as an id that does not exist, not as a malformed request", async () => {
    const g = await group("acme", "Bare Strings", [live.acme[0]]);
    expect((await patch("acme", g, [{ op: "add", path: "members", value: "string id 1" }])).status).toBe(204);
    expect((await patch("acme", g, [{ op: "add", path: "members", value: ["string id 2", { value: live.acme[1] }] }])).status).toBe(204);
    expect(await memberIds("acme", g)).toEqual([live.acme[0], live.acme[1]].sort());
    expect(await skippedNote(g, "string id 1")).toContain("skipped 1 member id(s)");
    expect(await skippedNote(g, "string id 2")).toContain("string id 2");
    const post = await api().post(`${base("acme")}/Groups`).set(s.auth()).send({ displayName: "Bare Post", members: [live.acme[2], { value: live.acme[2] }] });
    expect(post.status).toBe(201);
    expect(post.body.members.map((m: { value: string }) => m.value)).toEqual([live.acme[2]]);
  });

  it("should still refuse a member object without a value", async () => {
    const g = await group("acme", "No Value");
    expectScimError(await patch("acme", g, [{ op: "add", path: "members", value: [{ display: "x" }] }]), 400, "invalidValue");
  });
});

describe("a strict directory", () => {
  it("should refuse a batch with a stale id (400 invalidValue) naming it, and change nothing", async () => {
    const g = await group("globex", "Strict", [live.globex[0]]);
    const res = await patch("globex", g, [{ op: "add", path: "members", value: [{ value: live.globex[1] }, { value: gone.globex }, { value: "never-was" }] }]);
    expectScimError(res, 400, "invalidValue");
    expect(res.body.detail).toContain(gone.globex);
    expect(await memberIds("globex", g)).toEqual([live.globex[0]]);
    const before = await s.groups.count("globex");
    expectScimError(await api().post(`${base("globex")}/Groups`).set(s.auth("globex")).send({ displayName: "Strict Post", members: [{ value: gone.globex }] }), 400, "invalidValue");
    expect(await s.groups.count("globex")).toBe(before);
  });

  it("should refuse a bare string member value as malformed (400 invalidValue)", async () => {
    const g = await group("globex", "Strict Bare");
    expectScimError(await patch("globex", g, [{ op: "add", path: "members", value: "string id 1" }]), 400, "invalidValue");
  });
});
