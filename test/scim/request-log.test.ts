/**
 * The per-directory SCIM request log: every SCIM request to a directory, refused ones included, with its
 * answer; secrets redacted in every stored entry; read newest first through the admin API with filters and
 * a cursor; turned off per directory. Over HTTP against the real server; the store's trimming by age and
 * size against real Redis.
 */
import request from "supertest";
import { startSyncEnv, waitFor, TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { RequestLogStore } from "../../src/scim/request-log/request-log-store";
import { RequestLogKeys } from "../../src/scim/request-log/request-log-keys";
import type { RequestLogEntry } from "../../src/scim/request-log/request-log-entry";
import { logsCommand } from "../../src/cli/commands/logs";
import { adminApiBackend } from "../../src/cli/backends/admin-api-backend";
import { redisBackend } from "../../src/cli/backends/redis-backend";
import { RequestLogFilterError } from "../../src/scim/request-log/request-log-query";

let e: SyncEnv;
let s: BridgeServer;
beforeAll(async () => {
  e = await startSyncEnv({ directories: [{ id: "quiet", requestLog: { enabled: false } }] });
  s = await startBridgeServer(e);
}, 30000);
afterAll(async () => { await s?.close(); await e?.close(); });

const PASSWORD = "Pa55word-never-logged-7731";
const SCIM = "application/scim+json";
let seq = 0;
/** A SCIM request to the real server with its own request id (resolves with the answer and that id). */
async function scim(method: "get" | "post" | "patch" | "put" | "delete", path: string, body?: unknown, token: string | null = TOKENS.wf, dir = "wf") {
  const requestId = `rl-test-${++seq}`;
  let t = request(s.url)[method](`/scim/v2/${dir}${path}`).set("X-Request-Id", requestId).set("User-Agent", "Okta SCIM Client 1.0.0");
  if (token !== null) t = t.set("Authorization", `Bearer ${token}`);
  const res = body === undefined ? await t : typeof body === "string" ? await t.set("Content-Type", SCIM).send(body) : await t.set("Content-Type", SCIM).send(JSON.stringify(body));
  return { res, requestId };
}

const admin = (path: string) => request(s.url).get(`/admin/directories${path}`).set("Authorization", `Bearer ${ADMIN_TOKEN}`);
/** The entry of `requestId` once it is written (after the answer). */
async function entryOf(requestId: string, dir = "wf"): Promise<RequestLogEntry> {
  let found: RequestLogEntry | undefined;
  await waitFor(async () => {
    const res = await admin(`/${dir}/requests/${requestId}`);
    if (res.status === 200) found = res.body as RequestLogEntry;
    return !!found;
  }, 10000, `log entry ${requestId}`);
  return found!;
}

describe("the SCIM request log", () => {
  it("should record a create with the answer, the resource and the client, with the password redacted", async () => {
    const { res, requestId } = await scim("post", "/Users", userBody("logged@example.com", { password: PASSWORD, externalId: "ext-logged" }));
    expect(res.status).toBe(201);
    const entry = await entryOf(requestId);
    expect(entry).toMatchObject({
      requestId, method: "POST", path: "/scim/v2/wf/Users", status: 201, resourceType: "User", resourceId: res.body.id,
      userName: "logged@example.com", userAgent: "Okta SCIM Client 1.0.0", token: "config token #1",
    });
    expect(entry.client).toMatch(/127\.0\.0\.1/);
    expect(typeof entry.durationMs).toBe("number");
    expect(Date.parse(entry.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(entry.request!.body).toMatchObject({ userName: "logged@example.com", password: "[redacted]" });
    expect(entry.response!.body).toMatchObject({ id: res.body.id, userName: "logged@example.com" });
  });

  it("should record refused requests: a wrong token as unknown, no token, a 404, a 409 with its scimType and detail, bad JSON", async () => {
    const wrong = await scim("get", "/Users", undefined, "not-a-token");
    const none = await scim("get", "/Users", undefined, null);
    const missing = await scim("get", "/Users/0000-nope");
    const dup = await scim("post", "/Users", userBody("logged@example.com"));
    const bad = await scim("post", "/Users", "{\"userName\": ");
    const malformed = await scim("get", "/Users/%E0%A4%A");
    expect(malformed.res.status).toBeLessThan(500);
    expect(await entryOf(malformed.requestId)).toMatchObject({ resourceType: "User", resourceId: "%E0%A4%A" });
    expect([wrong.res.status, none.res.status, missing.res.status, dup.res.status, bad.res.status]).toEqual([401, 401, 404, 409, 400]);
    expect(await entryOf(wrong.requestId)).toMatchObject({ status: 401, token: "unknown token", detail: expect.stringMatching(/Authorization failure/) });
    expect(await entryOf(none.requestId)).toMatchObject({ status: 401, token: "no token" });
    expect(await entryOf(missing.requestId)).toMatchObject({ status: 404, resourceType: "User", resourceId: "0000-nope" });
    expect(await entryOf(dup.requestId)).toMatchObject({ status: 409, scimType: "uniqueness", userName: "logged@example.com" });
    const badEntry = await entryOf(bad.requestId);
    expect(badEntry).toMatchObject({ status: 400, scimType: "invalidSyntax" });
    expect(badEntry.request).toBeUndefined(); // a body that could not be read is not kept (it could hold anything)
  });

  it("should cap each body at requestLog.maxBodyBytes, saying it was cut", async () => {
    const big = await scim("post", "/Users", userBody("big.body@example.com", { title: "é".repeat(6000) }));
    expect(big.res.status).toBe(201);
    const entry = await entryOf(big.requestId);
    for (const b of [entry.request!, entry.response!]) {
      expect(b.truncated).toBe(true);
      expect(b.body).toBeUndefined();
      expect(Buffer.byteLength(b.text!)).toBeLessThanOrEqual(4096);
      expect(Buffer.byteLength(b.text!)).toBeGreaterThan(4000);
      expect(b.text).not.toContain("\uFFFD");
    }
    expect(entry.userName).toBe("big.body@example.com");
  });

  it("should keep no secret in any stored entry: passwords in bodies and PATCH values, tokens", async () => {
    const created = await scim("post", "/Users", userBody("secret.holder@example.com", { password: PASSWORD }));
    const id = created.res.body.id as string;
    const patch = await scim("patch", `/Users/${id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [
      { op: "replace", path: "password", value: PASSWORD }, { op: "replace", value: { password: PASSWORD } }] });
    await scim("post", "/Users", { ...userBody("token.holder@example.com"), apiToken: PASSWORD, nested: { clientSecret: PASSWORD } });
    const put = await scim("put", `/Users/${id}`, userBody("secret.holder@example.com", { password: PASSWORD, id }));
    await scim("get", "/Users", undefined, PASSWORD); // a wrong token that is a secret too
    await entryOf(put.requestId);
    expect((await entryOf(patch.requestId)).status).toBe(200);
    const raw = JSON.stringify(await e.redis.xrange(new RequestLogKeys(e.prefix).log("wf"), "-", "+"));
    for (const secret of [PASSWORD, TOKENS.wf, ADMIN_TOKEN]) expect(raw).not.toContain(secret);
    expect(raw).toContain("[redacted]");
  });

  it("should answer newest first with filters and a cursor, and refuse a filter it cannot read", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await scim("get", `/Users?filter=${encodeURIComponent(`userName eq "page${i}@example.com"`)}`)).requestId);
    await entryOf(ids[4]);
    const all = await admin("/wf/requests?limit=200");
    expect(all.status).toBe(200);
    const list = all.body.requests as RequestLogEntry[];
    expect(list.map((r) => r.requestId).slice(0, 5)).toEqual([...ids].reverse());
    expect(all.body.next).toBeNull();
    // paging: two at a time, going on from `next`
    const first = await admin("/wf/requests?limit=2&method=GET&q=page");
    expect(first.body.requests.map((r: RequestLogEntry) => r.requestId)).toEqual([ids[4], ids[3]]);
    const second = await admin(`/wf/requests?limit=2&method=GET&q=page&cursor=${first.body.next}`);
    expect(second.body.requests.map((r: RequestLogEntry) => r.requestId)).toEqual([ids[2], ids[1]]);
    // status classes and exact statuses
    const fourxx = (await admin("/wf/requests?status=4xx&limit=200")).body.requests as RequestLogEntry[];
    expect(fourxx.length).toBeGreaterThanOrEqual(5);
    expect(fourxx.every((r) => r.status >= 400 && r.status < 500)).toBe(true);
    const unauth = (await admin("/wf/requests?status=401")).body.requests as RequestLogEntry[];
    expect(unauth.length).toBeGreaterThanOrEqual(2);
    expect(unauth.every((r) => r.status === 401)).toBe(true);
    // a resource by userName (case-insensitive) or by id
    const byName = (await admin("/wf/requests?resource=LOGGED@example.com&method=POST")).body.requests as RequestLogEntry[];
    expect(byName.map((r) => r.status).sort()).toEqual([201, 409]);
    const created = byName.find((r) => r.status === 201)!;
    expect(((await admin(`/wf/requests?resource=${created.resourceId}`)).body.requests as RequestLogEntry[]).map((r) => r.requestId)).toContain(created.requestId);
    // time bounds
    const future = (await admin(`/wf/requests?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body;
    expect(future).toEqual({ requests: [], next: null });
    const past = (await admin("/wf/requests?until=2000-01-01T00:00:00Z")).body;
    expect(past.requests).toEqual([]);
    for (const bad of ["status=4x", "limit=0", "limit=201", "since=yesterday", "method=G3T", "cursor=abc"]) {
      const res = await admin(`/wf/requests?${bad}`);
      expect([bad, res.status]).toEqual([bad, 400]);
    }
    expect((await admin("/nope/requests")).status).toBe(404);
    expect((await admin("/wf/requests/no-such-request")).status).toBe(404);
    expect((await request(s.url).get("/admin/directories/wf/requests").set("Authorization", `Bearer ${TOKENS.wf}`)).status).toBe(401);
  });

  it("should record nothing for a directory whose log is turned off, nor for a directory that does not exist", async () => {
    const quiet = await scim("post", "/Users", userBody("quiet@example.com"), "quiet-token-1", "quiet");
    expect(quiet.res.status).toBe(201);
    await scim("get", "/Users", undefined, "whatever", "no-such-directory");
    // a later request to a logged directory is written after the ones before it were answered
    const marker = await scim("get", "/Users?count=1");
    await entryOf(marker.requestId);
    expect((await admin("/quiet/requests")).body).toEqual({ requests: [], next: null });
    const keys = new RequestLogKeys(e.prefix);
    // one key per call: the two directories hash to different slots on Redis Cluster
    expect(await e.redis.exists(keys.log("quiet")) + await e.redis.exists(keys.log("no-such-directory"))).toBe(0);
  });
});

describe("scim-bridge logs", () => {
  it("should list a directory's requests through the admin API and through Redis, as lines or NDJSON, and follow new ones", async () => {
    const refused = await scim("get", "/Groups", undefined, "cli-wrong-token");
    await entryOf(refused.requestId);
    for (const backend of [adminApiBackend(s.url, ADMIN_TOKEN), await redisBackend(e.config)]) {
      try {
        const lines: string[] = [];
        await logsCommand(backend, "wf", { status: "401", limit: "1" }, { json: false, follow: false }, (l) => lines.push(l));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(new RegExp(`GET +/scim/v2/wf/Groups  401 .*\\[unknown token\\] ${refused.requestId}  Authorization failure`));
        const json: string[] = [];
        await logsCommand(backend, "wf", { method: "POST", limit: "3" }, { json: true, follow: false }, (l) => json.push(l));
        expect(json.length).toBe(3);
        for (const l of json) expect(JSON.parse(l)).toMatchObject({ method: "POST", requestId: expect.any(String) });
        await expect(logsCommand(backend, "wf", { status: "nope" }, { json: false, follow: false }, () => undefined)).rejects.toThrow(RequestLogFilterError);
      } finally {
        await backend.close();
      }
    }
    // --follow: prints what arrives after the first page
    const followed: string[] = [];
    const stop = new AbortController();
    const backend = adminApiBackend(s.url, ADMIN_TOKEN);
    const following = logsCommand(backend, "wf", { limit: "1" }, { json: true, follow: true, signal: stop.signal, pollMs: 50 }, (l) => followed.push(l));
    await waitFor(async () => followed.length === 1, 5000, "first page");
    const fresh = await scim("get", "/Users?count=2");
    await waitFor(async () => followed.some((l) => (JSON.parse(l) as RequestLogEntry).requestId === fresh.requestId), 10000, "followed entry");
    stop.abort();
    await following;
  });
});

describe("RequestLogStore retention", () => {
  const entry = (n: number, pad = 0): Omit<RequestLogEntry, "id"> => ({
    at: new Date().toISOString(), requestId: `trim-${n}`, method: "GET", path: `/scim/v2/t/Users?n=${n}`, status: 200, durationMs: 1,
    response: { text: "x".repeat(pad) },
  });

  it("should trim the oldest entries past the size bound, with their request ids, and keep the newest", async () => {
    const store = new RequestLogStore(e.redis, e.prefix);
    const keys = new RequestLogKeys(e.prefix);
    const limits = { maxAgeDays: 30, maxMegabytes: 20_000 / (1024 * 1024) }; // 20,000 bytes
    for (let n = 0; n < 60; n++) await store.append("trimsize", entry(n, 900), limits);
    const kept = await e.redis.xrange(keys.log("trimsize"), "-", "+");
    const bytes = Number(await e.redis.hget(keys.index("trimsize"), ":bytes"));
    expect(bytes).toBeLessThanOrEqual(20_000);
    expect(kept.length).toBeGreaterThan(10);
    expect(kept.length).toBeLessThan(25);
    const sizes = kept.reduce((sum, [, f]) => sum + Number(f[f.indexOf("s") + 1]), 0);
    expect(bytes).toBe(sizes);
    // the newest are kept, in order; the trimmed ones cannot be found by request id any more
    expect(kept.map(([, f]) => f[f.indexOf("r") + 1])).toEqual(Array.from({ length: kept.length }, (_, i) => `trim-${60 - kept.length + i}`));
    expect(await store.byRequestId("trimsize", "trim-0")).toBeUndefined();
    expect((await store.byRequestId("trimsize", "trim-59"))?.path).toBe("/scim/v2/t/Users?n=59");
    expect(await e.redis.hlen(keys.index("trimsize"))).toBe(kept.length + 1);
    // both keys expire after the retention of a quiet directory
    expect(await e.redis.pttl(keys.log("trimsize"))).toBeGreaterThan(29 * 86_400_000);
  });

  it("should trim entries older than the age bound, oldest first, at most a bounded number per append", async () => {
    const store = new RequestLogStore(e.redis, e.prefix);
    const keys = new RequestLogKeys(e.prefix);
    const limits = { maxAgeDays: 30, maxMegabytes: 50 };
    for (let n = 0; n < 120; n++) await store.append("trimage", entry(n), limits);
    expect(await e.redis.xlen(keys.log("trimage"))).toBe(120);
    // 31 days on, every entry is past the age bound: each append trims at most 50 of them
    const later = Date.now() + 31 * 86_400_000;
    await store.append("trimage", entry(1000), limits, later);
    expect(await e.redis.xlen(keys.log("trimage"))).toBe(71);
    await store.append("trimage", entry(1001), limits, later);
    await store.append("trimage", entry(1002), limits, later);
    // (seen from 31 days on, the entries just added are past the bound too: all but the newest go)
    const left = await e.redis.xrange(keys.log("trimage"), "-", "+");
    expect(left.map(([, f]) => f[f.indexOf("r") + 1])).toEqual(["trim-1002"]);
    expect(await store.byRequestId("trimage", "trim-5")).toBeUndefined();
  });
});
