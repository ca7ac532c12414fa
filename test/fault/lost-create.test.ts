/**
 * A POST whose answer was lost is not created twice. A private redis-server is SIGSTOPped right before the
 * create's write script is sent and SIGCONTed after the settle window (redis.writeSettleMs) has passed: the
 * POST answers 503 although its write commits once Redis runs again. The IdP's identical retry is answered
 * 201 with the resource that first POST created — one group, not two — and a different body still creates.
 */
import request from "supertest";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { waitFor } from "../helpers/sync-env";
import { ProcessSet } from "../helpers/processes";
import { startStalledScim, stopBeforeNext, type StalledScim } from "../helpers/stalled-scim";

const TOKEN = "lost-token-1";
const G = "/scim/v2/acme/Groups";
const U = "/scim/v2/acme/Users";

let set: ProcessSet;
let s: StalledScim;

beforeAll(async () => {
  set = new ProcessSet();
  s = await startStalledScim(set, { keyPrefix: "lost", token: TOKEN, commandTimeoutMs: 500, writeSettleMs: 1000 });
}, 30000);
afterAll(async () => {
  s?.store.disconnect();
  s?.check.disconnect();
  await set?.killAll();
});

const auth = { Authorization: `Bearer ${TOKEN}` };

/**
 * POSTs `body` with redis-server stopped before its write script is sent: the answer comes once the settle
 * window has passed (503, outcome unknown), and then Redis runs again and the write commits.
 */
async function postWithAnswerLost(path: string, body: object, script: "writeUser" | "writeGroup"): Promise<void> {
  const stopped = stopBeforeNext(s, script);
  const res = await request(s.app).post(path).set(auth).send(body);
  expectScimError(res, 503);
  process.kill(await stopped, "SIGCONT");
}

/** Waits until Redis holds `n` fingerprints of lost creates (written once Redis answers again). */
async function fingerprints(n: number): Promise<string[]> {
  return waitFor(async () => {
    const keys = await s.check.keys("lost:{acme}:lc:*");
    return keys.length >= n ? keys : undefined;
  }, 10000, `${n} lost-create fingerprint(s)`);
}

describe("a POST whose answer was lost (redis-server stopped past the settle window)", () => {
  it("should answer the IdP's identical group retry with the group the first POST created, not a second group", async () => {
    const body = { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Lost Answer Group", members: [] };
    await postWithAnswerLost(G, body, "writeGroup");
    // the write committed once Redis ran again, and the fingerprint was written
    await waitFor(async () => (await s.check.zcard("lost:{acme}:groups")) === 1, 10000, "the first create to commit");
    await fingerprints(1);
    const [committed] = await s.check.zrange("lost:{acme}:groups", "0", "-1");

    const retry = await request(s.app).post(G).set(auth).send(body);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ id: committed, displayName: "Lost Answer Group" });
    expect(retry.headers.location).toBe(`https://bridge.example.com${G}/${committed}`);
    expect(await s.check.zcard("lost:{acme}:groups")).toBe(1);
    // a different body is another create
    expect((await request(s.app).post(G).set(auth).send({ ...body, displayName: "Another Group" })).status).toBe(201);
    expect(await s.check.zcard("lost:{acme}:groups")).toBe(2);
  }, 30000);

  it("should answer a user's identical retry 201 with that user (not 409), and keep no password in the fingerprint", async () => {
    const body = userBody("lost.answer@example.com", { password: "s3cret-Passw0rd" });
    await postWithAnswerLost(U, body, "writeUser");
    await waitFor(async () => (await s.check.zcard("lost:{acme}:users")) === 1, 10000, "the first create to commit");
    const keys = await fingerprints(2);
    const [committed] = await s.check.zrange("lost:{acme}:users", "0", "-1");
    for (const k of keys) expect(`${k} ${await s.check.get(k)}`).not.toMatch(/s3cret/);
    const retry = await request(s.app).post(U).set(auth).send(body);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ id: committed, userName: "lost.answer@example.com" });
    expect(await s.check.zcard("lost:{acme}:users")).toBe(1);
  }, 30000);
});
