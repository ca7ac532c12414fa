/**
 * No response carries a stack trace, a file path, a runtime error name or Express's default HTML error
 * page: malformed URLs, bodies and headers on every surface (SCIM, admin, bull-board, health), and
 * internal failures (the store's or the admin API's Redis connection closed).
 */
import express from "express";
import { createQueueConnection, createStoreConnection, GroupStore, UserStore, waitReady } from "../../src/store";
import { adminRouter } from "../../src/admin/app";
import { createScimApp } from "../../src/scim/app";
import { hashToken } from "../../src/auth/token";
import { SyncQueues } from "../../src/sync/admission/queues";
import { createLogger } from "../../src/observability/logger";
import { startSyncEnv, TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { rawRequest, type RawResponse } from "../helpers/raw-http";
import { expectScimError, userBody } from "../helpers/expect-scim";

let e: SyncEnv;
let s: BridgeServer;
beforeAll(async () => {
  e = await startSyncEnv({ runtime: false });
  s = await startBridgeServer(e);
});
afterAll(async () => { await s.close(); await e.close(); });

const ADMIN = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const SCIM = { Authorization: `Bearer ${TOKENS.wf}` };
const INTERNALS = /\n\s+at |\bat [\w.<>]+ \(|[\w-]+\.[jt]s:\d+|node_modules|\/work\/|\/src\/|Error: |URIError|SyntaxError|TypeError|RangeError|ReqlError|ECONNREFUSED|Connection is closed|call stack|<pre>/i;

/** Asserts a body free of internals; HTML only where `htmlAllowed` (the admin's own pages). */
function expectClean(res: RawResponse, what: string, htmlAllowed = false): void {
  const problem = INTERNALS.test(res.text) ? `internals: ${res.text.match(INTERNALS)?.[0]}` : !htmlAllowed && /<html|<!doctype/i.test(res.text) ? "an HTML page" : undefined;
  if (problem) throw new Error(`${what} → ${res.status} with ${problem}\n${res.text.slice(0, 400)}`);
}

describe("malformed requests on the running server", () => {
  it("should answer malformed URLs with JSON, not an HTML error page, before and after authentication", async () => {
    for (const [path, headers, status] of [
      ["/scim/v2/%E0%A4%A/Users", {}, 400], ["/scim/v2/%E0%A4%A/Users", SCIM, 400], ["/scim/v2/%/Users", {}, 400],
      ["/scim/v2/wf/Users/%E0%A4%A", SCIM, 400], ["/scim/v2/wf/Groups/%FF", SCIM, 400], ["/scim/v2/wf/Users/%E0%A4%A", {}, 401],
      ["/admin/directories/%E0%A4%A", ADMIN, 400], ["/admin/directories/%E0%A4%A", {}, 401], ["/admin/directories/wf/items/user/%E0/retry", ADMIN, 400],
      ["/admin/queues/api/queues/%E0%A4%A/x", ADMIN, 400], ["/%E0%A4%A", {}, 404], ["/healthz/%E0", {}, 404],
    ] as Array<[string, Record<string, string>, number]>) {
      const res = await rawRequest(s.url, { method: path.includes("/retry") ? "POST" : "GET", path, headers });
      expectClean(res, `GET ${path}`);
      expect([path, res.status]).toEqual([path, status]);
      if (path.startsWith("/scim") || path === "/%E0%A4%A" || path.startsWith("/healthz")) expectScimError(res, status);
      else expect(res.headers["content-type"]).toMatch(/application\/json/);
    }
  });

  it("should answer paths outside every surface with a SCIM 404 body", async () => {
    for (const path of ["/", "/nothing", "/favicon.ico", "/.env", "/scim", "/scim/v2", "/scim/v2/", "/metrics/x", "/readyz/x"]) {
      const res = await rawRequest(s.url, { method: "GET", path });
      expectClean(res, `GET ${path}`);
      expectScimError(res, 404);
    }
    for (const method of ["PUT", "DELETE", "TRACE", "PATCH"]) {
      const res = await rawRequest(s.url, { method, path: "/healthz" });
      expectClean(res, `${method} /healthz`);
      expect(res.status).toBe(404);
    }
  });

  it("should answer bad admin bodies (JSON, size, form) with JSON errors, signed in or not", async () => {
    for (const [path, headers, body, type, status] of [
      ["/admin/login", {}, "{", "application/json", 400],
      ["/admin/login", {}, JSON.stringify({ token: "x".repeat(100_000) }), "application/json", 413],
      ["/admin/login", {}, `token=${"x".repeat(20_000)}`, "application/x-www-form-urlencoded", 413],
      ["/admin/directories/wf/retry", ADMIN, '{"a":', "application/json", 400],
      ["/admin/directories/wf/retry", {}, '{"a":', "application/json", 400],
      ["/admin/directories/wf/resync", ADMIN, "{}", "application/json; charset=latin-9", 415],
      ["/admin/directories/wf/retry", ADMIN, "\u0000\u0001", "application/json", 400],
    ] as Array<[string, Record<string, string>, string, string, number]>) {
      const res = await rawRequest(s.url, { method: "POST", path, headers: { ...headers, "Content-Type": type }, body });
      expectClean(res, `POST ${path} ${type}`);
      expect([path, type, res.status]).toEqual([path, type, status]);
      expect(res.body).toEqual({ error: expect.any(String) });
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("should answer bad SCIM bodies on the running server with SCIM errors", async () => {
    for (const [body, type, status, scimType] of [["{", "application/scim+json", 400, "invalidSyntax"], ["x", "text/plain", 415, undefined], ['{"userName":"' + "x".repeat(2 * 1024 * 1024) + '"}', "application/scim+json", 413, undefined]] as const) {
      const res = await rawRequest(s.url, { method: "POST", path: "/scim/v2/wf/Users", headers: { ...SCIM, "Content-Type": type }, body });
      expectClean(res, `POST /Users ${type}`);
      expectScimError(res, status, scimType);
    }
  });

  it("should refuse a header larger than the server accepts without an HTML page or a stack", async () => {
    for (const path of ["/scim/v2/wf/Users", "/admin/status", "/healthz"]) {
      const res = await rawRequest(s.url, { method: "GET", path, headers: { ...SCIM, "X-Big": "x".repeat(64 * 1024) } });
      expectClean(res, `GET ${path} with a 64 KiB header`);
      expect(res.status).toBe(431);
    }
  });
});

describe("internal failures", () => {
  let afterAllRestore = () => undefined as void;
  afterAll(() => afterAllRestore());

  it("should answer SCIM requests with 503 and a clean SCIM body when the store's Redis connection is closed", async () => {
    const redis = createStoreConnection(e.config.redis.url, 500);
    redis.on("error", () => undefined);
    await waitReady(redis);
    redis.disconnect();
    const app = createScimApp({ config: e.config, users: new UserStore(redis, e.prefix), groups: new GroupStore(redis, e.prefix), logger: createLogger("silent") });
    for (const [method, path, body] of [
      ["GET", "/scim/v2/wf/Users", undefined], ["GET", "/scim/v2/wf/Users/x", undefined], ["POST", "/scim/v2/wf/Users", JSON.stringify(userBody("closed@example.com"))],
      ["PATCH", "/scim/v2/wf/Groups/g", JSON.stringify({ Operations: [{ op: "add", path: "members", value: [{ value: "u" }] }] })],
      ["POST", "/scim/v2/wf/Groups/.search", JSON.stringify({ filter: "displayName pr" })], ["DELETE", "/scim/v2/wf/Users/x", undefined],
      ["GET", "/scim/v2/wf/Users", undefined], ["GET", "/scim/v2/wf/ServiceProviderConfig", undefined],
    ] as Array<[string, string, string | undefined]>) {
      const res = await rawRequest(app, { method, path, body, headers: { ...SCIM, "Content-Type": "application/scim+json" } });
      expectClean(res, `${method} ${path} with Redis closed`);
      if (!path.endsWith("ServiceProviderConfig")) expectScimError(res, 503);
    }
  });

  it("should answer the admin API and bull-board with a clean 503 + Retry-After when their Redis connection is closed (even with NODE_ENV=development)", async () => {
    const env = process.env.NODE_ENV;
    process.env.NODE_ENV = "development"; // where Express and bull-board put stacks in bodies
    afterAllRestore = () => { process.env.NODE_ENV = env; };
    const redis = createQueueConnection(e.config.redis.url);
    redis.on("error", () => undefined);
    await waitReady(redis);
    const app = express();
    app.use("/admin", adminRouter({ config: { ...e.config, admin: { tokenHashes: [hashToken(ADMIN_TOKEN)] } }, redis, queues: new SyncQueues(redis, e.config), logger: createLogger("silent") }));
    redis.disconnect();
    for (const path of ["/admin/directories", "/admin/directories/wf", "/admin/directories/wf/failed", "/admin/status", "/admin/queues/api/queues", "/admin/directories/wf/resync"]) {
      const res = await rawRequest(app, { method: "GET", path, headers: { ...ADMIN, Accept: "application/json" } });
      expectClean(res, `GET ${path} with Redis closed`);
      // the store is away, not broken: the operator's tooling retries, as an IdP does on the SCIM API
      expect([path, res.status, res.headers["retry-after"]]).toEqual([path, 503, String(e.config.server.retryAfterSeconds)]);
    }
    const post = await rawRequest(app, { method: "POST", path: "/admin/directories/wf/resync", headers: ADMIN });
    expectClean(post, "POST resync with Redis closed");
    expect(post.status).toBe(503);
    expect(post.body).toEqual({ error: "the store cannot be reached; retry later" });
  });
});
