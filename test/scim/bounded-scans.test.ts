/**
 * The work of a filter no index answers is bounded (issue 9 item 5): it reads the directory in slices,
 * at most `scim.maxScanRecords` records (400 tooMany beyond, [RFC7644§3.12]), and at most
 * `scim.maxConcurrentScans` scans of one directory run at once while other directories go on.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";
import { SCAN_SLICE } from "../../src/scim/query/list";
import { ScanGate } from "../../src/scim/query/scan-gate";

describe("scim.maxScanRecords", () => {
  let s: TestScim;
  let groupId: string;
  beforeAll(async () => {
    s = await startScim({ scim: { maxScanRecords: 5 } });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody(`scan${i}@example.com`, { title: `T${i}` })).expect(201)).body.id);
    groupId = (await request(s.app).post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Big", members: ids.map((value) => ({ value })) }).expect(201)).body.id;
  });
  afterAll(async () => s.close());

  const get = (path: string, query: Record<string, string> = {}) => request(s.app).get(`/scim/v2/acme${path}`).query(query).set(s.auth());

  it("should answer a filter that would read more records than the limit with 400 tooMany, and change nothing", async () => {
    await expectUnchanged(s.redis, s.prefix, async () => {
      for (const [path, query] of [["/Users", { filter: 'title co "T"' }], ["/Users", { sortBy: "title" }], ["/", { filter: 'displayName pr' }],
        ["/Groups", { filter: 'members.display co "x"' }]] as const) {
        const res = await get(path, query);
        expectScimError(res, 400, "tooMany");
        // a sort-only request is told which sorts an index answers, a filtered one which filters
        expect(res.body.detail).toMatch("filter" in query ? /indexed attribute/ : /^Sorting by title .* answered from an index/);
      }
      const search = await request(s.app).post("/scim/v2/acme/Users/.search").set(s.auth()).send({ filter: "not (title eq x)" });
      expectScimError(search, 400, "tooMany");
    });
  });

  it("should still answer what an index or plain paging answers, whatever the directory holds", async () => {
    expect((await get("/Users", { filter: 'userName eq "scan3@example.com"' })).body.totalResults).toBe(1);
    expect((await get("/Users", { filter: 'userName eq "scan3@example.com" and title co "T"' })).body.totalResults).toBe(1);
    expect((await get("/Users", { startIndex: "2", count: "3" })).body).toMatchObject({ totalResults: 6, itemsPerPage: 3 });
    expect((await get(`/Groups/${groupId}`)).body.members).toHaveLength(6);
  });

  it("should count the members a group is read with against the limit", async () => {
    const g = await startScim({ scim: { maxScanRecords: 6 } });
    try {
      const a = (await request(g.app).post("/scim/v2/acme/Users").set(g.auth()).send(userBody("m1@example.com")).expect(201)).body.id;
      const b = (await request(g.app).post("/scim/v2/acme/Users").set(g.auth()).send(userBody("m2@example.com")).expect(201)).body.id;
      await request(g.app).post("/scim/v2/acme/Groups").set(g.auth()).send({ displayName: "G1", members: [{ value: a, display: "x1" }, { value: b }] }).expect(201);
      await request(g.app).post("/scim/v2/acme/Groups").set(g.auth()).send({ displayName: "G2", members: [{ value: a }] }).expect(201);
      // 2 groups + 3 members = 5 records: within 6
      expect((await request(g.app).get("/scim/v2/acme/Groups").query({ filter: 'members.display co "x"' }).set(g.auth())).body.totalResults).toBe(1);
      await request(g.app).post("/scim/v2/acme/Groups").set(g.auth()).send({ displayName: "G3", members: [{ value: a }, { value: b }] }).expect(201);
      // 3 groups + 5 members = 8 records
      expectScimError(await request(g.app).get("/scim/v2/acme/Groups").query({ filter: 'members.display co "x"' }).set(g.auth()), 400, "tooMany");
    } finally {
      await g.close();
    }
  });
});

const gateOriginal = ScanGate.prototype.run;

describe("a scan", () => {
  let s: TestScim;
  beforeAll(async () => {
    // the set-up creates 407 users at once, more than one directory's default share of requests in progress
    s = await startScim({ scim: { maxConcurrentScans: 1, maxConcurrentRequests: 1000 } });
    const n = 2 * SCAN_SLICE + 7;
    await Promise.all(Array.from({ length: n }, (_, i) => request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody(`slice${i}@example.com`, { title: i % 2 ? "odd" : "even" })).expect(201)));
    await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("other@example.com", { title: "odd" })).expect(201);
  });
  afterAll(async () => s.close());

  it("should read the directory in slices of SCAN_SLICE and find every match", async () => {
    const slices = jest.spyOn(s.users, "idsAfter");
    const res = await request(s.app).get("/scim/v2/acme/Users").query({ filter: 'title eq "odd"', count: "1000" }).set(s.auth());
    expect(res.body.totalResults).toBe(SCAN_SLICE + 3);
    expect(slices.mock.calls.map((c) => c[2])).toEqual([SCAN_SLICE, SCAN_SLICE, SCAN_SLICE, SCAN_SLICE]); // 200 + 200 + 7, then an empty slice
    expect(slices.mock.results.length).toBe(4);
    slices.mockRestore();
  });

  it("should let one scan of a directory run at a time (maxConcurrentScans 1) while another directory's scan goes on", async () => {
    const original = s.users.idsAfter.bind(s.users);
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let acmeSlices = 0;
    let firstSliceRead!: () => void;
    const firstRead = new Promise<void>((r) => { firstSliceRead = r; });
    const spy = jest.spyOn(s.users, "idsAfter").mockImplementation(async (dir, after, limit) => {
      if (dir === "acme") {
        acmeSlices++;
        if (acmeSlices === 1) { firstSliceRead(); await held; }
      }
      return original(dir, after, limit);
    });
    let secondAtGate!: () => void;
    const atGate = new Promise<void>((r) => { secondAtGate = r; });
    const gate = jest.spyOn(ScanGate.prototype, "run");
    let acmeAtGate = 0;
    gate.mockImplementation(function (this: ScanGate, dir, fn) {
      if (dir === "acme" && ++acmeAtGate === 2) secondAtGate();
      return gateOriginal.call(this, dir, fn) as never;
    });
    const scan = (dir: "acme" | "globex") => request(s.app).get(`/scim/v2/${dir}/Users`).query({ filter: 'title eq "odd"' }).set(s.auth(dir)).then((r) => r);
    const first = scan("acme");
    try {
      await firstRead;
      const second = scan("acme");
      await atGate; // the second acme scan has reached the gate
      const other = await scan("globex"); // not held up by acme's scans
      expect(other.body.totalResults).toBe(1);
      expect(acmeSlices).toBe(1); // the second acme scan waits for the first
      release();
      const [a, b] = await Promise.all([first, second]);
      expect(a.body.totalResults).toBe(SCAN_SLICE + 3);
      expect(b.body.totalResults).toBe(SCAN_SLICE + 3);
      expect(acmeSlices).toBe(8);
    } finally {
      release();
      await first;
      spy.mockRestore();
      gate.mockRestore();
    }
  });
});
