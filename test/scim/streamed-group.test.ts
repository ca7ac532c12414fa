/**
 * A group whose members do not fit one bounded read is answered as a stream: members are read slice by
 * slice (HSCAN) and written to the socket as they arrive. The answer must be byte for byte the JSON a
 * whole answer would be, with the same headers, under every projection, at sizes on both sides of a
 * slice; and members changed during a read must each appear at most once, the others exactly once.
 */
import request from "supertest";
import { MEMBER_SLICE, type GroupRecord, type MemberRecord } from "../../src/store";
import { parseProjection, project } from "../../src/scim/query/attributes";
import { groupResource } from "../../src/scim/resources/representation";
import { startScim, type TestScim } from "../helpers/scim-app";

let s: TestScim;
const G = "/scim/v2/acme/Groups";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const base = "https://bridge.example.com/scim/v2/acme";

/** `n` users created through the store, in parallel batches; their ids. */
async function users(tag: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `${tag}-${String(i).padStart(5, "0")}`);
  for (let i = 0; i < n; i += 200) {
    await Promise.all(ids.slice(i, i + 200).map((id) => s.users.write("acme", id, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: id }, "create")));
  }
  return ids;
}

/** Creates a group through the store with `values` as members (every third with a display). */
async function group(name: string, values: string[], groupMembers: string[] = []): Promise<string> {
  const id = `g-${name}`;
  const members = [...values.map((value, i) => ({ value, ...(i % 3 === 0 ? { display: `Name "${i}" é` } : {}) })), ...groupMembers.map((value) => ({ value }))];
  await s.groups.write("acme", id, { mode: "create", body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: name, externalId: `x-${name}` }, memberOps: [{ op: "add", members: members.slice(0, 1) }] });
  for (let i = 1; i < members.length; i += 1000) {
    await s.groups.write("acme", id, { mode: "update", memberOps: [{ op: "add", members: members.slice(i, i + 1000) }] });
  }
  return id;
}

/** The whole (unstreamed) answer for the group as read back, its members in `order`. */
async function wholeAnswer(id: string, order: string[], query: Record<string, string>): Promise<string> {
  const rec = (await s.groups.get("acme", id, true)) as GroupRecord;
  const byValue = new Map(rec.members!.map((m) => [m.value, m]));
  const members: MemberRecord[] = order.map((v) => byValue.get(v)!);
  expect(members.every(Boolean)).toBe(true);
  return JSON.stringify(project(groupResource({ ...rec, members }, base), parseProjection(query.attributes, query.excludedAttributes)));
}

beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());

describe("GET /Groups/<id> of a group larger than one slice", () => {
  const sizes = [MEMBER_SLICE - 1, MEMBER_SLICE, MEMBER_SLICE + 1, 2 * MEMBER_SLICE + 500];
  const ids = new Map<number, string>();
  let subgroup: string;

  beforeAll(async () => {
    const all = await users("su", sizes[sizes.length - 1]);
    subgroup = await group("sub", all.slice(0, 2));
    for (const n of sizes) ids.set(n, await group(`size${n}`, all.slice(0, n), n > MEMBER_SLICE ? [subgroup] : []));
  }, 120000);

  const queries: Array<Record<string, string>> = [
    {},
    { attributes: "members" },
    { attributes: "members.value,displayName" },
    { attributes: "displayName,members[type eq \"Group\"],externalId" },
    { attributes: "members[display co \"1\"].display,id" },
    { excludedAttributes: "members.display" },
    { excludedAttributes: "members[type eq \"User\"]" },
    { excludedAttributes: "externalId" },
  ];

  it.each(sizes)("should answer %i members byte for byte as the whole JSON, under every projection", async (n) => {
    const id = ids.get(n)!;
    const stored = (await s.redis.hkeys(s.groups.keys("acme").groupMembers(id))).sort();
    for (const query of queries) {
      const res = await request(s.app).get(`${G}/${id}`).query(query).set(s.auth()).buffer(true).parse((r, cb) => {
        let text = ""; r.setEncoding("utf8"); r.on("data", (c: string) => { text += c; }); r.on("end", () => cb(null, text));
      });
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("application/scim+json");
      const rec = (await s.groups.get("acme", id, false))!;
      expect(res.headers.etag).toBe(`W/"${rec.version}"`);
      const text = res.body as string;
      // the member order of the read: HSCAN's when streamed (the same on an unchanged hash), else HGETALL's
      const order: string[] = [];
      if (n > MEMBER_SLICE) for await (const slice of s.groups.memberSlices("acme", id)) order.push(...slice.map((m) => m.value));
      else order.push(...((await s.groups.get("acme", id, true))!.members!.map((m) => m.value)));
      expect(text).toBe(await wholeAnswer(id, order, query));
      expect(res.headers["transfer-encoding"]).toBe(n > MEMBER_SLICE ? "chunked" : undefined);
      if (!query.attributes && !query.excludedAttributes) {
        const shown = (JSON.parse(text) as { members: Array<{ value: string }> }).members.map((m) => m.value);
        expect([...shown].sort()).toEqual(stored);
      }
    }
  });

  it.each<Record<string, string>>([{}, { attributes: "members.value,displayName" }, { excludedAttributes: "members.display" }])(
    "should stream a page of groups byte for byte as the whole ListResponse (%j)", async (query: Record<string, string>) => {
      const res = await request(s.app).get(G).query({ ...query, startIndex: "1", count: "10" }).set(s.auth()).buffer(true).parse((r, cb) => {
        let text = ""; r.setEncoding("utf8"); r.on("data", (c: string) => { text += c; }); r.on("end", () => cb(null, text));
      });
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("application/scim+json");
      expect(res.headers["transfer-encoding"]).toBe("chunked");
      const text = res.body as string;
      const page = JSON.parse(text) as { totalResults: number; Resources: Array<{ id: string; members?: Array<{ value: string }> }> };
      expect(page.Resources.map((g) => g.id).sort()).toEqual([subgroup, ...ids.values()].sort());
      const whole: string[] = [];
      for (const g of page.Resources) whole.push(await wholeAnswer(g.id, (g.members ?? []).map((m) => m.value), query));
      const head = JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: page.totalResults, startIndex: 1, itemsPerPage: page.Resources.length });
      expect(text).toBe(`${head.slice(0, -1)},"Resources":[${whole.join(",")}]}`);
      const big = page.Resources.find((g) => g.id === ids.get(2 * MEMBER_SLICE + 500))!;
      expect(big.members!.map((m) => m.value).sort()).toEqual((await s.redis.hkeys(s.groups.keys("acme").groupMembers(big.id))).sort());
    });

  it("should answer a created group of many members with its Location, streamed", async () => {
    const values = (await users("sc", MEMBER_SLICE + 10));
    const res = await request(s.app).post(G).set(s.auth()).send({ displayName: "created big", members: values.map((value) => ({ value })) });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${base}/Groups/${res.body.id}`);
    expect(res.headers.etag).toBe(res.body.meta.version);
    expect((res.body.members as Array<{ value: string }>).map((m) => m.value).sort()).toEqual(values);
  }, 60000);
});
