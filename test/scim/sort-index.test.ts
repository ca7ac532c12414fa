/**
 * sortBy without a scan: with more records than `scim.maxScanRecords`, sorting users by userName,
 * displayName, meta.created and meta.lastModified (groups by displayName, meta.created, meta.lastModified)
 * is answered from sort indexes kept by the write and delete scripts, built for older records on first use;
 * other sorts say what they would have to read, and a sort-only request is never told about a filter.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
const U = "/scim/v2/acme/Users";
const G = "/scim/v2/acme/Groups";
type U = { id: string; userName: string; displayName?: string };
const users: U[] = [];
const groups: Array<{ id: string; displayName: string }> = [];

const ids = (res: { body: { Resources: Array<{ id: string }> } }) => res.body.Resources.map((r) => r.id);
const get = (path: string, q: Record<string, string | number>) => request(s.app).get(path).query(q).set(s.auth());
const byText = (f: (u: U) => string | undefined, desc = false) => (a: U, b: U) => {
  const x = f(a)?.toLowerCase(), y = f(b)?.toLowerCase();
  if (x === undefined || y === undefined) return x === y ? (a.id < b.id ? -1 : 1) : x === undefined ? 1 : -1;
  // equal keys by id, reversed with the order (the index's rank order read backwards)
  const c = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : 1;
  return desc ? -c : c;
};

beforeAll(async () => {
  s = await startScim({ scim: { maxResults: 100, maxScanRecords: 20 } });
  const names = ["delta", "Alpha", "charlie", "bravo", "Echo", "foxtrot", "golf", "Hotel"];
  for (let i = 0; i < 40; i++) {
    const userName = `${names[i % 8]}.${String((i * 7) % 40).padStart(2, "0")}`;
    const displayName = i % 5 === 0 ? undefined : `${names[(i * 3) % 8]} ${i % 4}`;
    const r = await request(s.app).post(U).set(s.auth()).send(userBody(userName, displayName ? { displayName } : {}));
    users.push({ id: r.body.id, userName, displayName });
  }
  for (let i = 0; i < 25; i++) {
    const displayName = `${names[(i * 5) % 8]} team ${i}`;
    const r = await request(s.app).post(G).set(s.auth()).send({ displayName, members: [{ value: users[i].id }] });
    groups.push({ id: r.body.id, displayName });
  }
});
afterAll(async () => s.close());

describe("sortBy from an index, with more records than scim.maxScanRecords", () => {
  it("should sort users by userName both ways, page by page", async () => {
    const asc = [...users].sort(byText((u) => u.userName)).map((u) => u.id);
    expect(ids(await get(U, { sortBy: "userName", count: 100 }))).toEqual(asc);
    expect(ids(await get(U, { sortBy: "userName", sortOrder: "descending", startIndex: 11, count: 10 }))).toEqual([...asc].reverse().slice(10, 20));
    const page = await get(U, { sortBy: "urn:ietf:params:scim:schemas:core:2.0:User:userName", startIndex: 35, count: 10 });
    expect(page.body).toMatchObject({ totalResults: 40, startIndex: 35, itemsPerPage: 6 });
    expect(ids(page)).toEqual(asc.slice(34));
  });

  it("should sort users by displayName with missing values last in both orders", async () => {
    expect(ids(await get(U, { sortBy: "displayName", count: 100 }))).toEqual([...users].sort(byText((u) => u.displayName)).map((u) => u.id));
    const desc = ids(await get(U, { sortBy: "displayName", sortOrder: "descending", count: 100 }));
    expect(desc).toEqual([...users].sort(byText((u) => u.displayName, true)).map((u) => u.id));
    expect(desc.slice(-8).every((id) => users.find((u) => u.id === id)!.displayName === undefined)).toBe(true);
    // across the boundary between present and missing values
    expect(ids(await get(U, { sortBy: "displayName", sortOrder: "descending", startIndex: 30, count: 5 }))).toEqual(desc.slice(29, 34));
  });

  it("should sort by meta.created in creation order and by meta.lastModified as writes happen", async () => {
    expect(ids(await get(U, { sortBy: "meta.created", count: 100 }))).toEqual(users.map((u) => u.id));
    expect(ids(await get(U, { sortBy: "meta.created", sortOrder: "descending", count: 5 }))).toEqual(users.map((u) => u.id).reverse().slice(0, 5));
    const touched = [users[3], users[0]];
    for (const u of touched) {
      const r = await request(s.app).patch(`${U}/${u.id}`).set(s.auth())
        .send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "title", value: `t${u.id}` }] });
      expect(r.status).toBe(200);
    }
    const byModified = ids(await get(U, { sortBy: "meta.lastModified", count: 100 }));
    expect(byModified.slice(-2)).toEqual(touched.map((u) => u.id));
    expect(ids(await get(U, { sortBy: "meta.lastModified", sortOrder: "descending", count: 2 }))).toEqual(touched.map((u) => u.id).reverse());
  });

  it("should sort groups by displayName and by meta.lastModified, which a member's deletion changes", async () => {
    const asc = [...groups].sort((a, b) => (a.displayName.toLowerCase() < b.displayName.toLowerCase() ? -1 : 1)).map((g) => g.id);
    expect(ids(await get(G, { sortBy: "displayName", count: 100, excludedAttributes: "members" }))).toEqual(asc);
    // deleting users[2] removes it from groups[2], whose lastModified becomes the latest
    expect((await request(s.app).delete(`${U}/${users[2].id}`).set(s.auth())).status).toBe(204);
    users.splice(2, 1);
    expect(ids(await get(G, { sortBy: "meta.lastModified", sortOrder: "descending", count: 1 }))).toEqual([groups[2].id]);
    expect(ids(await get(G, { sortBy: "meta.created", count: 100 }))).toEqual(groups.map((g) => g.id));
  });

  it("should walk a cursor over the userName index, every surviving user once while others are deleted", async () => {
    const asc = [...users].sort(byText((u) => u.userName)).map((u) => u.id);
    const doomed = asc.filter((_, i) => i % 4 === 1);
    const seen: string[] = [];
    let cursor = "";
    for (let n = 1; ; n++) {
      const res = await get(U, { sortBy: "userName", count: 6, cursor });
      expect(res.status).toBe(200);
      expect(res.body.totalResults).toBeGreaterThan(20);
      seen.push(...ids(res));
      if (!res.body.nextCursor) break;
      cursor = res.body.nextCursor;
      if (n === 2) for (const id of doomed) await request(s.app).delete(`${U}/${id}`).set(s.auth());
    }
    const survivors = asc.filter((id) => !doomed.includes(id));
    expect(seen.filter((id) => survivors.includes(id))).toEqual(survivors);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of doomed) users.splice(users.findIndex((u) => u.id === id), 1);
  });

  it("should build the indexes for records written before they existed, on first use", async () => {
    const p = `${s.prefix}:{acme}:`;
    await s.redis.del(`${p}sx:u:un`, `${p}sx:u:dn`, `${p}sx:u:m`, `${p}sx:g:dn`, `${p}sx:g:m`, `${p}sx:ready`);
    expect(ids(await get(U, { sortBy: "userName", count: 100 }))).toEqual([...users].sort(byText((u) => u.userName)).map((u) => u.id));
    expect(await s.redis.get(`${p}sx:ready`)).toBe("1");
    expect(await s.redis.zcard(`${p}sx:g:dn`)).toBe(groups.length);
  });
});

describe("what is still refused, and how it is said", () => {
  it("should tell a sort-only request on another attribute about sorting, not about a filter", async () => {
    const res = await get(U, { sortBy: "title" });
    expectScimError(res, 400, "tooMany");
    expect(res.body.detail).toMatch(/^Sorting by title needs a scan of \d+ records/);
    expect(res.body.detail).not.toMatch(/filter/i);
  });

  it("should count the members a scan read in the tooMany message", async () => {
    const small = await startScim({ scim: { maxScanRecords: 20 } });
    try {
      const members: Array<{ value: string }> = [];
      for (let i = 0; i < 15; i++) members.push({ value: (await request(small.app).post(U).set(small.auth()).send(userBody(`m.${i}`))).body.id });
      for (let i = 0; i < 2; i++) await request(small.app).post(G).set(small.auth()).send({ displayName: `heavy ${i}`, members });
      const res = await request(small.app).get(G).query({ filter: 'members.display co "x"' }).set(small.auth());
      expectScimError(res, 400, "tooMany");
      const read = Number(/read (\d+) records/.exec(res.body.detail)?.[1]);
      expect(read).toBeGreaterThan(20);
      expect(read % 16).toBe(0); // whole groups, each 1 + 15 members
    } finally {
      await small.close();
    }
  });

  it("should say in /ServiceProviderConfig which sorts are answered at any size", async () => {
    const res = await request(s.app).get("/scim/v2/acme/ServiceProviderConfig").set(s.auth());
    expect(res.body.sort.supported).toBe(true);
    expect(res.body.sort.description).toMatch(/userName, displayName, meta\.created and meta\.lastModified/);
    expect(res.body.sort.description).toMatch(/more than 20 records/);
  });
});
