/**
 * RFC 9865 cursor pagination over HTTP: advertised in /ServiceProviderConfig, a walk that returns every
 * resource existing for its whole length exactly once while others are created and deleted, sealed cursors
 * (forged, foreign, expired ones refused with the RFC's scimTypes), bounded filtered walks, sorted walks,
 * and cursor pages of groups that end at their member budget while index pages keep `count`.
 */
import request from "supertest";
import { CursorCodec } from "../../src/scim/cursor/cursor-codec";
import { CursorKeyStore } from "../../src/scim/cursor/cursor-key-store";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
const U = "/scim/v2/acme/Users";
const G = "/scim/v2/acme/Groups";
const users: string[] = [];

type Page = { status: number; text: string; headers: Record<string, string>; body: { totalResults?: number; itemsPerPage: number; nextCursor?: string; startIndex?: number; Resources: Array<{ id: string; userName?: string; members?: unknown[] }> } };

const get = (path: string, q: Record<string, string | number>) => request(s.app).get(path).query(q).set(s.auth()) as unknown as Promise<Page>;

/** Walks every cursor page of `path`; `between` runs after page `n` (1-based). */
async function walk(path: string, q: Record<string, string | number>, between?: (n: number) => Promise<void>): Promise<{ ids: string[]; pages: Page[] }> {
  const ids: string[] = [];
  const pages: Page[] = [];
  let cursor = "";
  for (let n = 1; n < 500; n++) {
    const res = await get(path, { ...q, cursor });
    expect(res.status).toBe(200);
    pages.push(res);
    ids.push(...res.body.Resources.map((r) => r.id));
    if (!res.body.nextCursor) return { ids, pages };
    expect(res.body.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/); // RFC 3986 unreserved characters only
    cursor = res.body.nextCursor;
    if (between) await between(n);
  }
  throw new Error("the walk did not end");
}

beforeAll(async () => {
  s = await startScim({ scim: { maxResults: 20, defaultCount: 10, maxPageMembers: 25 } });
  for (let i = 0; i < 100; i++) {
    const r = await request(s.app).post(U).set(s.auth()).send(userBody(`walk.${String(i).padStart(3, "0")}`, { title: i % 3 === 0 ? "three" : "other" }));
    users.push(r.body.id);
  }
});
afterAll(async () => s.close());

describe("cursor pagination (RFC 9865)", () => {
  it("should advertise cursor and index pagination, index by default, in /ServiceProviderConfig", async () => {
    const res = await request(s.app).get("/scim/v2/acme/ServiceProviderConfig").set(s.auth());
    expect(res.body.pagination).toEqual({ cursor: true, index: true, defaultPaginationMethod: "index", defaultPageSize: 10, maxPageSize: 20, cursorTimeout: 3600 });
  });

  it("should walk every user once in creation order, with totalResults, and no nextCursor on the last page", async () => {
    const { ids, pages } = await walk(U, { count: 15 });
    expect(ids).toEqual(users);
    expect(pages).toHaveLength(7);
    expect(pages[0].body).toMatchObject({ totalResults: 100, itemsPerPage: 15 });
    expect(pages[0].body.startIndex).toBeUndefined();
    expect(pages[6].body).toMatchObject({ itemsPerPage: 10 });
  });

  it("should return every surviving user exactly once when 50 are deleted and 10 created mid-walk", async () => {
    const extra: string[] = [];
    for (let i = 0; i < 60; i++) extra.push((await request(s.app).post(U).set(s.auth()).send(userBody(`churn.${i}`))).body.id);
    // after the second page, 50 users are deleted on both sides of the cursor's position and 10 created
    const doomed = extra.filter((_, i) => i % 6 < 5);
    const created: string[] = [];
    const { ids } = await walk(U, { count: 10, filter: 'userName sw "churn."' }, async (n) => {
      if (n !== 2) return;
      for (const id of doomed) expect((await request(s.app).delete(`${U}/${id}`).set(s.auth())).status).toBe(204);
      for (let i = 0; i < 10; i++) created.push((await request(s.app).post(U).set(s.auth()).send(userBody(`churn.new.${i}`))).body.id);
    });
    const survivors = extra.filter((id) => !doomed.includes(id));
    expect(survivors).toHaveLength(10);
    for (const id of survivors) expect(ids.filter((x) => x === id)).toHaveLength(1);
    expect(new Set(ids).size).toBe(ids.length);
    // a deleted user shows only on a page read before its deletion
    for (const id of ids) expect([...extra, ...created]).toContain(id);
    expect(ids.filter((id) => doomed.includes(id))).toEqual(extra.slice(0, 20).filter((id) => doomed.includes(id)));
    for (const id of [...created, ...survivors]) await request(s.app).delete(`${U}/${id}`).set(s.auth());
  });

  it("should keep a plain walk exact under 50 deletions: every user that existed throughout, once", async () => {
    const extra: string[] = [];
    for (let i = 0; i < 80; i++) extra.push((await request(s.app).post(U).set(s.auth()).send(userBody(`plain.${i}`))).body.id);
    const doomed = extra.filter((_, i) => i % 8 < 5); // 50 spread over the whole walk
    const { ids } = await walk(U, { count: 20 }, async (n) => {
      if (n === 4) for (const id of doomed) await request(s.app).delete(`${U}/${id}`).set(s.auth());
    });
    const survivors = [...users, ...extra.filter((id) => !doomed.includes(id))];
    expect(ids.filter((id) => survivors.includes(id))).toEqual(survivors);
    for (const id of extra) if (!doomed.includes(id)) await request(s.app).delete(`${U}/${id}`).set(s.auth());
  });

  it("should show what index paging does under the same deletions: survivors skipped (docs/limitations.md)", async () => {
    const extra: string[] = [];
    for (let i = 0; i < 80; i++) extra.push((await request(s.app).post(U).set(s.auth()).send(userBody(`index.${i}`))).body.id);
    const doomed = extra.filter((_, i) => i % 8 < 5);
    const seen: string[] = [];
    for (let start = 1, n = 1; ; start += 20, n++) {
      const res = await get(U, { startIndex: start, count: 20 });
      seen.push(...res.body.Resources.map((r) => r.id));
      if (n === 7) for (const id of extra.slice(0, 40).filter((id) => doomed.includes(id))) await request(s.app).delete(`${U}/${id}`).set(s.auth());
      if (res.body.itemsPerPage < 20) break;
    }
    for (const id of extra.slice(40)) await request(s.app).delete(`${U}/${id}`).set(s.auth());
    for (const id of extra.slice(0, 40)) if (!doomed.includes(id)) await request(s.app).delete(`${U}/${id}`).set(s.auth());
    // 25 deletions behind the position move the next 25 users forward past it: the 9 survivors among them are never seen
    const survivors = [...users, ...extra.filter((id) => !doomed.includes(id))];
    expect(survivors.filter((id) => !seen.includes(id))).toEqual(extra.slice(40, 65).filter((id) => !doomed.includes(id)));
    expect(survivors.filter((id) => !seen.includes(id))).toHaveLength(9);
  });

  it("should end a filtered page early at the scan budget, without totalResults, and still return every match once", async () => {
    const small = await startScim({ scim: { maxResults: 20, maxScanRecords: 30 } });
    try {
      const mine: string[] = [];
      for (let i = 0; i < 70; i++) {
        const r = await request(small.app).post(U).set(small.auth()).send(userBody(`budget.${i}`, { title: i % 2 ? "odd" : "even" }));
        if (i % 2) mine.push(r.body.id);
      }
      // an index page refuses: the directory holds more than the budget
      expectScimError(await request(small.app).get(U).query({ filter: 'title eq "odd"' }).set(small.auth()), 400, "tooMany");
      const ids: string[] = [];
      let cursor = "";
      for (;;) {
        const res = await request(small.app).get(U).query({ filter: 'title eq "odd"', count: 20, cursor }).set(small.auth());
        expect(res.status).toBe(200);
        expect(res.body.totalResults).toBeUndefined();
        expect(res.body.itemsPerPage).toBeLessThanOrEqual(16);
        ids.push(...res.body.Resources.map((r: { id: string }) => r.id));
        if (!res.body.nextCursor) break;
        cursor = res.body.nextCursor;
      }
      expect(ids).toEqual(mine);
    } finally {
      await small.close();
    }
  });

  it("should answer an indexed filter with its total", async () => {
    const res = await get(U, { filter: 'userName eq "walk.007"', cursor: "" });
    expect(res.body).toMatchObject({ totalResults: 1, itemsPerPage: 1 });
    expect(res.body.nextCursor).toBeUndefined();
    expect(res.body.Resources[0].id).toBe(users[7]);
  });

  it("should walk a sort order once, ties broken the same way on every page", async () => {
    const { ids, pages } = await walk(U, { count: 7, sortBy: "title", sortOrder: "descending" });
    expect([...ids].sort()).toEqual([...users].sort());
    expect(pages[0].body.totalResults).toBe(100);
    const titles = (await get(U, { count: 20, sortBy: "title", sortOrder: "descending", cursor: "" })).body.Resources.map((r) => (r as { title?: string }).title);
    expect(titles.every((t) => t === "three")).toBe(true);
  });

  it("should walk the server root over users, then groups", async () => {
    const g = (await request(s.app).post(G).set(s.auth()).send({ displayName: "root walk" })).body.id;
    const { ids } = await walk("/scim/v2/acme/", { count: 20 });
    expect(ids).toEqual([...users, g]);
    await request(s.app).delete(`${G}/${g}`).set(s.auth());
  });

  it("should accept the cursor in a POST /.search body", async () => {
    const res = await request(s.app).post(`${U}/.search`).set(s.auth())
      .send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"], cursor: "", count: 5 });
    expect(res.body).toMatchObject({ itemsPerPage: 5, totalResults: 100 });
    const next = await request(s.app).post(`${U}/.search`).set(s.auth())
      .send({ schemas: ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"], cursor: res.body.nextCursor, count: 5 });
    expect(next.body.Resources.map((r: { id: string }) => r.id)).toEqual(users.slice(5, 10));
  });
});

describe("cursor errors", () => {
  let cursor: string;
  beforeAll(async () => { cursor = (await get(U, { count: 5, cursor: "" })).body.nextCursor!; });

  it("should refuse a forged or altered cursor with 400 invalidCursor", async () => {
    expectScimError(await get(U, { cursor: "not-a-cursor" }), 400, "invalidCursor");
    const flipped = cursor.slice(0, 20) + (cursor[20] === "A" ? "B" : "A") + cursor.slice(21);
    expectScimError(await get(U, { cursor: flipped }), 400, "invalidCursor");
    expectScimError(await get(U, { cursor: "a+b/c=" }), 400, "invalidCursor");
  });

  it("should refuse a cursor issued for another query, endpoint or directory", async () => {
    expectScimError(await get(U, { cursor, filter: 'userName sw "walk"' }), 400, "invalidCursor");
    expectScimError(await get(U, { cursor, sortBy: "userName" }), 400, "invalidCursor");
    expectScimError(await get(G, { cursor }), 400, "invalidCursor");
    expectScimError(await request(s.app).get("/scim/v2/globex/Users").query({ cursor }).set(s.auth("globex")), 400, "invalidCursor");
    // the same query with another count or projection goes on
    expect((await get(U, { cursor, count: 3, attributes: "userName" })).body.Resources).toHaveLength(3);
  });

  it("should refuse a cursor older than cursorTimeout with 400 expiredCursor", async () => {
    const codec = new CursorCodec(new CursorKeyStore(s.redis, s.prefix), 3600);
    const old = await codec.seal({ directoryId: "acme", endpoint: "Users", query: [null, null, null] }, { s: 0, q: 0 }, Date.now() - 3601_000);
    expectScimError(await get(U, { cursor: old }), 400, "expiredCursor");
    const fresh = await codec.seal({ directoryId: "acme", endpoint: "Users", query: [null, null, null] }, { s: 0, q: 0 });
    expect((await get(U, { cursor: fresh, count: 2 })).body.Resources.map((r) => r.id)).toEqual(users.slice(0, 2));
  });

  it("should refuse cursor with startIndex (400 invalidValue) and a count below 1 (400 invalidCount)", async () => {
    expectScimError(await get(U, { cursor: "", startIndex: 1 }), 400, "invalidValue");
    expectScimError(await get(U, { cursor: "", count: 0 }), 400, "invalidCount");
    expect((await get(U, { cursor: "", count: 1000 })).body.itemsPerPage).toBe(20);
  });
});

describe("page weight of groups", () => {
  const groups: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 12; i++) {
      const members = users.slice(i * 8, i * 8 + 10).map((value) => ({ value }));
      groups.push((await request(s.app).post(G).set(s.auth()).send({ displayName: `weighed ${i}`, members })).body.id);
    }
  });
  afterAll(async () => { for (const id of groups) await request(s.app).delete(`${G}/${id}`).set(s.auth()); });

  it("should end a cursor page of groups once it carries maxPageMembers members, itemsPerPage saying how many", async () => {
    const { ids, pages } = await walk(G, { count: 10 });
    expect(ids).toEqual(groups);
    // 10 members each, budget 25: the third group passes it
    expect(pages.map((p) => p.body.itemsPerPage)).toEqual([3, 3, 3, 3]);
    expect(pages[0].body.totalResults).toBe(12);
    expect(pages[0].body.Resources.every((r) => r.members!.length === 10)).toBe(true);
  });

  it("should keep count on index pages (Okta advances startIndex by count) and on pages without members", async () => {
    expect((await get(G, { startIndex: 1, count: 10 })).body).toMatchObject({ itemsPerPage: 10, totalResults: 12 });
    expect((await get(G, { cursor: "", count: 10, excludedAttributes: "members" })).body.itemsPerPage).toBe(10);
  });
});
