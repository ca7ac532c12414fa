/**
 * A write whose Redis command times out is settled before it is answered (issue 9 item 4). A private
 * redis-server (AOF) is SIGSTOPped right before a write script is sent and SIGCONTed 6 s later — after the
 * command timeout (1 s) — by PID:
 * - POST /Users answers 201 with the resource (not 503), and exactly one user exists;
 * - PUT and PATCH /Users answer 200 with the new value, a member PATCH /Groups 204 with the member stored,
 *   DELETE 204 with the user gone;
 * - a write resent by the client library after Redis was SIGKILLed while stopped and restarted from its
 *   AOF commits once and is answered 201;
 * - a write that did not commit answers 503 and can never commit afterwards: the IdP's retry creates the
 *   user (201, not 409).
 */
import request from "supertest";
import type { Express } from "express";
import type { Redis } from "ioredis";
import type { RedisConnection, UserStore } from "../../src/store";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { ProcessSet, type RedisServerProcess } from "../helpers/processes";
import { startStalledScim, stopBeforeNext } from "../helpers/stalled-scim";

const TOKEN = "stall-token-1";
const STOP_MS = 6000;
const U = "/scim/v2/acme/Users";
const G = "/scim/v2/acme/Groups";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

let set: ProcessSet;
let redisServer: RedisServerProcess;
let store: RedisConnection;
let check: Redis;
let users: UserStore;
let app: Express;
let stall: Awaited<ReturnType<typeof startStalledScim>>;

beforeAll(async () => {
  set = new ProcessSet();
  const stalled = await startStalledScim(set, { keyPrefix: "stall", token: TOKEN, commandTimeoutMs: 1000, writeSettleMs: 30000 });
  ({ redisServer, store, check, users, app } = stalled);
  stall = stalled;
}, 30000);
afterAll(async () => {
  store?.disconnect();
  check?.disconnect();
  await set?.killAll();
});

const auth = { Authorization: `Bearer ${TOKEN}` };
const api = () => request(app);

/**
 * The next call of the store's `script` stops redis-server (by PID) just before it is sent, and
 * `after(pid)` runs STOP_MS later (SIGCONT by default). Resolves when `after` has run.
 */
function stallNext(script: "writeUser" | "deleteUser" | "writeGroup", after = async (pid: number) => { process.kill(pid, "SIGCONT"); }): { resumed: Promise<void> } {
  let resume!: () => void;
  const resumed = new Promise<void>((r) => { resume = r; });
  void stopBeforeNext(stall, script).then((pid) => {
    setTimeout(() => { void after(pid).then(resume); }, STOP_MS);
  });
  return { resumed };
}

async function countUsers(): Promise<number> {
  return check.zcard("stall:{acme}:users");
}

describe("a write whose Redis command times out (redis-server SIGSTOPped for 6 s)", () => {
  let userId = "";

  it("should answer POST /Users with 201 and the resource when the write committed", async () => {
    const stall = stallNext("writeUser");
    const res = await api().post(U).set(auth).send(userBody("stalled.create@example.com", { externalId: "S-1" }));
    await stall.resumed;
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ userName: "stalled.create@example.com", externalId: "S-1", meta: { version: "W/\"1\"" } });
    userId = res.body.id;
    expect(res.headers.location).toBe(`https://bridge.example.com${U}/${userId}`);
    expect(await countUsers()).toBe(1);
    expect((await api().get(`${U}/${userId}`).set(auth)).body.userName).toBe("stalled.create@example.com");
  }, 30000);

  it("should answer PUT and PATCH /Users with 200 and the new value", async () => {
    let stall = stallNext("writeUser");
    const put = await api().put(`${U}/${userId}`).set(auth).send(userBody("stalled.create@example.com", { title: "put" }));
    await stall.resumed;
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ title: "put", meta: { version: "W/\"2\"" } });

    stall = stallNext("writeUser");
    const patch = await api().patch(`${U}/${userId}`).set(auth).send({ schemas: [PATCH], Operations: [{ op: "replace", path: "title", value: "patched" }] });
    await stall.resumed;
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ title: "patched", meta: { version: "W/\"3\"" } });
  }, 40000);

  it("should answer a member PATCH /Groups with 204 and keep the member", async () => {
    const g = await api().post(G).set(auth).send({ displayName: "Stalled Group" });
    expect(g.status).toBe(201);
    const stall = stallNext("writeGroup");
    const res = await api().patch(`${G}/${g.body.id}`).set(auth).send({ schemas: [PATCH], Operations: [{ op: "add", path: "members", value: [{ value: userId }] }] });
    await stall.resumed;
    expect(res.status).toBe(204);
    const after = await api().get(`${G}/${g.body.id}`).set(auth);
    expect(after.body.members.map((m: { value: string }) => m.value)).toEqual([userId]);
  }, 30000);

  it("should answer DELETE /Users with 204 and the user gone", async () => {
    const stall = stallNext("deleteUser");
    const res = await api().delete(`${U}/${userId}`).set(auth);
    await stall.resumed;
    expect(res.status).toBe(204);
    expect(await countUsers()).toBe(0);
    expect((await api().get(`${U}/${userId}`).set(auth)).status).toBe(404);
  }, 30000);

  it("should commit a write resent after a Redis restart once, and answer its real result", async () => {
    // stopped with the script sent, then killed and restarted from its AOF: the client library resends the
    // unanswered script on the new connection; its recorded result makes the settlement answer 201
    const stall = stallNext("writeUser", async () => {
      await redisServer.kill("SIGKILL");
      await redisServer.restart();
    });
    const before = await countUsers();
    const res = await api().post(U).set(auth).send(userBody("resent.create@example.com"));
    await stall.resumed;
    expect(res.status).toBe(201);
    expect(await countUsers()).toBe(before + 1);
    expect((await api().get(`${U}/${res.body.id}`).set(auth)).body.userName).toBe("resent.create@example.com");
    // the IdP's retry of an answered create is a conflict, as it should be
    expectScimError(await api().post(U).set(auth).send(userBody("resent.create@example.com")), 409, "uniqueness");
  }, 40000);

  it("should answer 503 for a write that did not commit, and the write can never commit afterwards", async () => {
    // the script's answer is lost before Redis ever saw it; settlement finds no result and gives it up
    const target = store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const original = target.writeUser;
    let lostArgs: unknown[] = [];
    target.writeUser = async (...args: unknown[]) => {
      target.writeUser = original;
      lostArgs = args;
      throw new Error("Command timed out");
    };
    const before = await countUsers();
    const res = await api().post(U).set(auth).send(userBody("never.ran@example.com"));
    expectScimError(res, 503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(await countUsers()).toBe(before);
    // the lost script arriving late (a resend) finds the mark and writes nothing
    expect(await original.apply(store, lostArgs)).toEqual(["ABANDONED"]);
    expect(await countUsers()).toBe(before);
    // the IdP's retry is a fresh create, not a 409 against a write that committed behind its back
    expect((await api().post(U).set(auth).send(userBody("never.ran@example.com"))).status).toBe(201);
  }, 30000);
});
