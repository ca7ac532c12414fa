/**
 * One directory's share of a server process: operations per PATCH (`scim.maxPatchOperations`, 400
 * tooMany), requests in progress at once (`scim.maxConcurrentRequests`, 429 + Retry-After), heavy
 * requests — scans and reads of large groups' members — running and waiting (`scim.maxConcurrentScans`,
 * `scim.maxQueuedScans`, 429 + Retry-After), and member reads counted against `scim.maxScanRecords`.
 * Each cap answers with an RFC 7644 §3.12 body, changes nothing, and leaves another directory alone.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { hashToken } from "../../src/auth/token";
import { ScanGate } from "../../src/scim/query/scan-gate";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";

const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

function dir(id: keyof typeof TOKENS, scim?: Record<string, number>) {
  return { id, tokenHashes: [hashToken(TOKENS[id])], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" }, ...(scim ? { scim } : {}) };
}

/** A promise and its resolver. */
function signal(): { wait: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const wait = new Promise<void>((r) => { fire = r; });
  return { wait, fire };
}

describe("scim.maxPatchOperations", () => {
  let s: TestScim;
  let userId: string;
  let groupId: string;
  beforeAll(async () => {
    s = await startScim({ scim: { maxPatchOperations: 3 } });
    userId = (await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody("ops@example.com")).expect(201)).body.id;
    groupId = (await request(s.app).post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Ops" }).expect(201)).body.id;
  });
  afterAll(async () => s.close());

  const titles = (n: number) => ({ schemas: [PATCH_SCHEMA], Operations: Array.from({ length: n }, (_, i) => ({ op: "replace", path: "title", value: `T${i}` })) });
  const adds = (n: number) => ({ schemas: [PATCH_SCHEMA], Operations: Array.from({ length: n }, () => ({ op: "add", path: "members", value: [{ value: userId }] })) });

  it("should refuse a PATCH of more operations than the cap with 400 tooMany, and change nothing", async () => {
    await expectUnchanged(s.redis, s.prefix, async () => {
      const u = await request(s.app).patch(`/scim/v2/acme/Users/${userId}`).set(s.auth()).send(titles(4));
      expectScimError(u, 400, "tooMany");
      expect(u.body.detail).toMatch(/more than the 3 operations/);
      expectScimError(await request(s.app).patch(`/scim/v2/acme/Groups/${groupId}`).set(s.auth()).send(adds(4)), 400, "tooMany");
    });
  });

  it("should refuse it from its bytes, before parsing them (a body over the cap that is not even JSON is tooMany)", async () => {
    const body = `${JSON.stringify(titles(4)).slice(0, -2)} ,{"OP" : "add", "path": `; // cut short: no JSON parser would take it
    const res = await request(s.app).patch(`/scim/v2/acme/Users/${userId}`).set(s.auth()).set("Content-Type", "application/scim+json").send(body);
    expectScimError(res, 400, "tooMany");
    // and a value that merely says "op" is no operation: the exact count of the parsed body decides
    const named = { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "title", value: '"op": "op": "op": "op"' }, { op: "replace", path: "nickName", value: "op" }] };
    expect((await request(s.app).patch(`/scim/v2/acme/Users/${userId}`).set(s.auth()).send(named).expect(200)).body.nickName).toBe("op");
  });

  it("should apply a PATCH of as many operations as the cap", async () => {
    expect((await request(s.app).patch(`/scim/v2/acme/Users/${userId}`).set(s.auth()).send(titles(3)).expect(200)).body.title).toBe("T2");
    await request(s.app).patch(`/scim/v2/acme/Groups/${groupId}`).set(s.auth()).send(adds(3)).expect(204);
    expect((await request(s.app).get(`/scim/v2/acme/Groups/${groupId}`).set(s.auth()).expect(200)).body.members).toEqual([expect.objectContaining({ value: userId })]);
  });

  it("should default to 1,000 operations", async () => {
    const d = await startScim();
    try {
      expect(d.config.scim.maxPatchOperations).toBe(1000);
    } finally {
      await d.close();
    }
  });
});

describe("scim.maxConcurrentRequests", () => {
  let s: TestScim;
  beforeAll(async () => {
    // globex keeps the process-wide share of 2; acme's own setting allows it 1
    s = await startScim({ scim: { maxConcurrentRequests: 2, retryAfterSeconds: 7 }, directories: [dir("acme", { maxConcurrentRequests: 1 }), dir("globex")] });
    await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody("busy@example.com")).expect(201);
    await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("free@example.com")).expect(201);
  });
  afterAll(async () => s.close());

  /** Holds every store read of `directory` until released; `reached` fires at each held read. */
  function holdReads(directory: string) {
    const original = s.users.count.bind(s.users);
    const release = signal();
    const reached: Array<() => void> = [];
    const spy = jest.spyOn(s.users, "count").mockImplementation(async (d) => {
      if (d === directory) { reached.shift()?.(); await release.wait; }
      return original(d);
    });
    const next = () => { const r = signal(); reached.push(r.fire); return r.wait; };
    return { release: release.fire, next, restore: () => spy.mockRestore() };
  }
  const list = (d: keyof typeof TOKENS) => request(s.app).get(`/scim/v2/${d}/Users`).query({ count: "1" }).set(s.auth(d)).then((r) => r);

  it("should answer a directory's request beyond its own share 429 with Retry-After, while another directory goes on", async () => {
    const hold = holdReads("acme");
    const atStore = hold.next();
    const first = list("acme");
    try {
      await atStore;
      const refused = await list("acme");
      expectScimError(refused, 429);
      expect(refused.headers["retry-after"]).toBe("7");
      expect(refused.body.detail).toMatch(/in progress at once/);
      expect((await list("globex")).body.totalResults).toBe(1);
    } finally {
      hold.release();
      hold.restore();
    }
    expect((await first).body.totalResults).toBe(1);
    expect((await list("acme")).status).toBe(200); // the slot came back
  });

  it("should count a write beyond the share as refused before its body is read, and change nothing", async () => {
    const hold = holdReads("globex");
    const a = hold.next();
    const b = hold.next();
    const held = [list("globex"), list("globex")];
    try {
      await Promise.all([a, b]);
      await expectUnchanged(s.redis, s.prefix, async () => {
        expectScimError(await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("late@example.com")), 429);
      });
    } finally {
      hold.release();
      hold.restore();
    }
    for (const r of await Promise.all(held)) expect(r.status).toBe(200);
  });
});

describe("heavy requests of one directory (scans, large groups' members)", () => {
  let s: TestScim;
  let bigGroup: string;
  const gateAcquire = ScanGate.prototype.acquire;
  beforeAll(async () => {
    s = await startScim({ scim: { maxConcurrentScans: 1, maxQueuedScans: 1, largeGroupMembers: 3, retryAfterSeconds: 3 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody(`heavy${i}@example.com`, { title: "t" })).expect(201)).body.id);
    bigGroup = (await request(s.app).post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Big", members: ids.map((value) => ({ value })) }).expect(201)).body.id;
    await request(s.app).post("/scim/v2/globex/Users").set(s.auth("globex")).send(userBody("g@example.com", { title: "t" })).expect(201);
  });
  afterAll(async () => s.close());

  /** Holds acme's member reads until released; `atGate` counts acme requests that reached the gate. */
  function holdMemberReads() {
    const original = s.groups.find.bind(s.groups);
    const release = signal();
    const firstRead = signal();
    const find = jest.spyOn(s.groups, "find").mockImplementation(async (d, index, values, withMembers) => {
      if (d === "acme" && withMembers) { firstRead.fire(); await release.wait; }
      return original(d, index, values, withMembers);
    });
    const queued = signal();
    let arrivals = 0;
    const gate = jest.spyOn(ScanGate.prototype, "acquire").mockImplementation(function (this: ScanGate, d: string) {
      const p = gateAcquire.call(this, d);
      if (d === "acme" && ++arrivals === 2) queued.fire();
      return p;
    });
    return { release: release.fire, firstRead: firstRead.wait, queued: queued.wait, restore: () => { find.mockRestore(); gate.mockRestore(); } };
  }

  it("should let one read of a large group's members run, queue the next, and answer one more 429 with Retry-After; small reads and other directories go on", async () => {
    const hold = holdMemberReads();
    const read = () => request(s.app).get(`/scim/v2/acme/Groups/${bigGroup}`).set(s.auth()).then((r) => r);
    const first = read();
    let second: Promise<Awaited<ReturnType<typeof read>>> | undefined;
    try {
      await hold.firstRead;
      second = read();
      await hold.queued;
      const third = await read();
      expectScimError(third, 429);
      expect(third.headers["retry-after"]).toBe("3");
      // the group without its members is no heavy work; neither is another directory's scan
      expect((await request(s.app).get(`/scim/v2/acme/Groups/${bigGroup}`).query({ excludedAttributes: "members" }).set(s.auth())).status).toBe(200);
      expect((await request(s.app).get("/scim/v2/globex/Users").query({ filter: 'title eq "t"' }).set(s.auth("globex"))).body.totalResults).toBe(1);
      // a scan of acme is heavy work of acme: the queue is full
      expectScimError(await request(s.app).get("/scim/v2/acme/Users").query({ filter: 'title eq "t"' }).set(s.auth()), 429);
    } finally {
      hold.release();
      hold.restore();
    }
    for (const r of await Promise.all([first, second!])) expect(r.body.members).toHaveLength(3);
    expect((await request(s.app).get("/scim/v2/acme/Users").query({ filter: 'title eq "t"' }).set(s.auth())).body.totalResults).toBe(3);
  });

  it("should give back the turn of a read whose client went away while it waited", async () => {
    const server = s.app.listen(0, "127.0.0.1");
    await new Promise<void>((r) => server.once("listening", () => r()));
    const hold = holdMemberReads();
    const read = () => request(s.app).get(`/scim/v2/acme/Groups/${bigGroup}`).set(s.auth()).then((r) => r);
    const first = read();
    try {
      await hold.firstRead;
      // the second read waits for its turn, then its client hangs up
      const { port } = server.address() as AddressInfo;
      const gone = http.get({ host: "127.0.0.1", port, path: `/scim/v2/acme/Groups/${bigGroup}`, headers: s.auth() });
      gone.on("error", () => undefined);
      await hold.queued;
      const closed = new Promise<void>((r) => gone.once("close", () => r()));
      gone.destroy();
      await closed;
    } finally {
      hold.release();
      hold.restore();
    }
    expect((await first).status).toBe(200);
    // were its turn never given back, these would wait (and then be refused) for ever
    for (const r of await Promise.all([read(), read()])) expect(r.body.members).toHaveLength(3);
    await new Promise<void>((r) => server.close(() => r()));
  });
});

describe("member reads against scim.maxScanRecords", () => {
  let s: TestScim;
  let groupId: string;
  beforeAll(async () => {
    s = await startScim({ scim: { maxScanRecords: 2 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await request(s.app).post("/scim/v2/acme/Users").set(s.auth()).send(userBody(`mr${i}@example.com`)).expect(201)).body.id);
    groupId = (await request(s.app).post("/scim/v2/acme/Groups").set(s.auth()).send({ displayName: "Readers", members: ids.map((value) => ({ value, display: `d${value}` })) }).expect(201)).body.id;
  });
  afterAll(async () => s.close());

  it("should count the members of groups an index found for a member filter (1 group + 3 members > 2)", async () => {
    const res = await request(s.app).get("/scim/v2/acme/Groups").query({ filter: 'displayName eq "Readers" and members.display co "x"' }).set(s.auth());
    expectScimError(res, 400, "tooMany");
    // without members in the filter the index answers alone
    expect((await request(s.app).get("/scim/v2/acme/Groups").query({ filter: 'displayName eq "Readers"' }).set(s.auth())).body.totalResults).toBe(1);
  });

  it("should refuse a member-filter removal that would read more members than the budget with 400 tooMany, and change nothing", async () => {
    const patch = { schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: 'members[value sw "z" or display co "q"]' }] };
    await expectUnchanged(s.redis, s.prefix, async () => {
      const res = await request(s.app).patch(`/scim/v2/acme/Groups/${groupId}`).set(s.auth()).send(patch);
      expectScimError(res, 400, "tooMany");
      expect(res.body.detail).toMatch(/all 3 members/);
    });
  });

  it("should still apply a member-filter removal within the budget", async () => {
    const d = await startScim({ scim: { maxScanRecords: 10 } });
    try {
      const u = (await request(d.app).post("/scim/v2/acme/Users").set(d.auth()).send(userBody("keep@example.com")).expect(201)).body.id;
      const g = (await request(d.app).post("/scim/v2/acme/Groups").set(d.auth()).send({ displayName: "Small", members: [{ value: u }] }).expect(201)).body.id;
      await request(d.app).patch(`/scim/v2/acme/Groups/${g}`).set(d.auth()).send({ schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: `members[value sw "${u.slice(0, 4)}"]` }] }).expect(204);
      expect((await request(d.app).get(`/scim/v2/acme/Groups/${g}`).set(d.auth())).body.members ?? []).toEqual([]);
    } finally {
      await d.close();
    }
  });
});
