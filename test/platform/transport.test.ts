/**
 * The client's transport against a real simulator over HTTP (no mocked transport): each error class,
 * Retry-After (seconds and HTTP-date), one attempt per call (BullMQ owns retries: test/sync/one-retry-layer),
 * timeouts via the latency fault, dropped connections, the connection cap (also over a pool shared by the
 * clients of one origin), the per-reconcile views of one client (each hears its own calls: the activity
 * trail), and log lines that carry no secret.
 */
import { Writable } from "node:stream";
import { createLogger } from "../../src/observability/logger";
import { AuthError, PlatformPools, RateLimitedError, ScopeError, TransientError, ValidationError, createPlatformClient, type PlatformClientOptions } from "../../src/platform";
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, startTestSimulator } from "../helpers/simulator";

let sim: RunningSimulator;
const clients: { close(): Promise<void> }[] = [];
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await sim.close();
});
function client(o: Partial<PlatformClientOptions> = {}) {
  const c = createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEYS.unscoped, deploymentId: 1, ...o });
  clients.push(c);
  return c;
}
const writes = () => sim.state.snapshot().counters;

describe("error classes", () => {
  it("should throw AuthError with status 401 for an unknown key", async () => {
    await expect(client({ apiKey: "wrong-key-123" }).deployments.list()).rejects.toMatchObject({ constructor: AuthError, status: 401 });
  });

  it("should throw ScopeError with status 403 for a deployment outside the key's scope", async () => {
    const err = await client({ apiKey: KEYS.scoped }).embed.generateSession({ deploymentId: 2, externalId: "a" }).catch((e) => e);
    expect(err).toBeInstanceOf(ScopeError);
    expect(err.status).toBe(403);
  });

  it("should throw ValidationError carrying the platform's message word for word", async () => {
    const err = await client().embed.generateSession({ deploymentId: 1, externalId: "a", groups: ["Ghosts"] }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 400, message: "Groups with names Ghosts not found", preflight: false });
  });

  it("should throw ValidationError with the SCIM detail and scimType for a 409", async () => {
    const c = client();
    await c.scim.createUser({ userName: "a" });
    await expect(c.scim.createUser({ userName: "A" })).rejects.toMatchObject({ constructor: ValidationError, status: 409, scimType: "uniqueness", message: "userName A already exists" });
  });

  it("should throw RateLimitedError with retryAfterMs from Retry-After seconds, without retrying", async () => {
    sim.setFaults({ rateLimit: { max: 1, durationMs: 60_000, retryAfterSeconds: 7 } });
    const c = client();
    await c.deployments.list();
    const err = await c.deployments.list().catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 7000 });
    expect(writes().faults.rateLimited).toBe(1);
  });

  it("should parse Retry-After given as an HTTP-date", async () => {
    sim.setFaults({ rateLimit: { max: 1, durationMs: 60_000, retryAfterSeconds: 30, retryAfterFormat: "http-date" } });
    const c = client();
    await c.deployments.list();
    const err = await c.deployments.list().catch((e) => e);
    expect(err.retryAfterMs).toBeGreaterThan(28_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(31_000);
  });

  it("should throw TransientError with the status after one attempt", async () => {
    sim.setFaults({ errors: { rate: 1, statuses: [503] } });
    await expect(client().deployments.list()).rejects.toMatchObject({ constructor: TransientError, status: 503 });
    expect(writes().faults.errors).toBe(1);
  });
});

describe("one attempt per call", () => {
  it("should not retry a transient error (BullMQ retries the job)", async () => {
    sim.setFaults({ errors: { next: 1, statuses: [502] } });
    const c = client();
    await expect(c.deployments.list()).rejects.toMatchObject({ constructor: TransientError, status: 502 });
    expect(await c.deployments.list()).toHaveLength(2);
    expect(writes().faults.errors).toBe(1);
    expect(writes().endpoints["GET /v1/deployments"].reads).toBe(1); // the faulted call never reached the endpoint
  });

  it("should not retry a ValidationError", async () => {
    await expect(client().embed.generateSession({ deploymentId: 1, externalId: "a", userAttributes: [{ name: "nope", value: 1 }] })).rejects.toBeInstanceOf(ValidationError);
    expect(writes().endpoints["POST /v1/embed/generate-session"].writes).toBe(1);
  });
});

describe("connections", () => {
  it("should time out a slow answer as TransientError TIMEOUT", async () => {
    // the answer comes after 300 ms; a TIMEOUT (not an answer) shows the call gave up at 80 ms (the time it
    // takes is a figure of bench/timing)
    sim.setFaults({ latency: { fixedMs: 300, jitterMs: 0 } });
    const err = await client({ timeoutMs: 80 }).deployments.list().catch((e) => e);
    expect(err).toBeInstanceOf(TransientError);
    expect(err).toMatchObject({ status: 0, code: "TIMEOUT" });
  });

  it("should treat a dropped connection as transient, and the next call goes through", async () => {
    sim.setFaults({ drop: { next: 1 } });
    const c = client();
    await expect(c.deployments.list()).rejects.toMatchObject({ constructor: TransientError, status: 0 });
    expect(await c.deployments.list()).toHaveLength(2);
    expect(writes().faults.dropped).toBe(1);
  });

  it("should keep at most maxConnections calls in flight (the pool's connection cap)", async () => {
    sim.setFaults({ latency: { fixedMs: 100, jitterMs: 0 } });
    const c = client({ maxConnections: 2 });
    const t = Date.now();
    await Promise.all([1, 2, 3, 4].map(() => c.deployments.list()));
    expect(Date.now() - t).toBeGreaterThanOrEqual(195);
  });

  it("should share one pool between the clients of an origin and still keep each client to its maxConnections", async () => {
    sim.setFaults({ latency: { fixedMs: 100, jitterMs: 0 } });
    const pools = new PlatformPools();
    const [a, b] = [client({ maxConnections: 1, pools }), client({ maxConnections: 1, pools })];
    const t = Date.now();
    await Promise.all([a, a, b, b].map((c) => c.deployments.list()));
    expect(Date.now() - t).toBeGreaterThanOrEqual(195); // each client's two calls one after the other
    expect(pools.origins()).toEqual([new URL(sim.baseUrl).origin]);
    await a.close();
    expect(pools.origins()).toHaveLength(1); // b still uses it
    await b.close();
    expect(pools.origins()).toEqual([]);
  });

  it("should spend a call's wait for a free connection from its timeout", async () => {
    // the second call waits ~100 ms for the first, then needs another 100 ms: past its 150 ms
    sim.setFaults({ latency: { fixedMs: 100, jitterMs: 0 } });
    const c = client({ maxConnections: 1, timeoutMs: 150, pools: new PlatformPools() });
    const [first, second] = await Promise.allSettled([c.deployments.list(), c.deployments.list()]);
    expect(first.status).toBe("fulfilled");
    expect(second).toMatchObject({ status: "rejected", reason: { constructor: TransientError, code: "TIMEOUT" } });
  });
});

describe("observed views", () => {
  it("should tell each view of its own calls only, while the client's onCall hears them all and its connection cap holds", async () => {
    sim.setFaults({ latency: { fixedMs: 100, jitterMs: 0 } });
    const all: string[] = [];
    const c = client({ maxConnections: 1, onCall: (call) => all.push(`${call.method} ${call.path} ${call.status}`) });
    const seen: Record<"a" | "b", string[]> = { a: [], b: [] };
    const a = c.observed((call) => seen.a.push(`${call.method} ${call.path} ${call.status}`));
    const b = c.observed((call) => seen.b.push(`${call.method} ${call.path} ${call.status}`));
    const t = Date.now();
    // run at once, interleaved: a call's view, not the order of answers, decides whose trail it goes to
    await Promise.all([a.scim.createUser({ userName: "view-a" }), b.deployments.list(), a.deployments.list()]);
    expect(Date.now() - t).toBeGreaterThanOrEqual(295); // one connection for the client and its views
    expect(seen.a).toEqual(["POST /scim/v2/Users 201", "GET /v1/deployments 200"]);
    expect(seen.b).toEqual(["GET /v1/deployments 200"]);
    expect(all.sort()).toEqual([...seen.a, ...seen.b].sort());
    await c.deployments.list();
    expect(seen.a).toHaveLength(2); // the client itself tells no view
  });
});

describe("logging", () => {
  it("should log method, path, status, durationMs and requestId, and never the key, query or session id", async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) });
    const c = client({ logger: createLogger("debug", sink), callLogLevel: "info" });
    const { sessionId } = await c.embed.generateSession({ deploymentId: 1, externalId: "a" });
    await c.scim.findUserByUserName("secret-user");
    await client({ apiKey: "wrong-key-123", logger: createLogger("debug", sink) }).deployments.list().catch(() => undefined);
    const all = lines.join("");
    expect(JSON.parse(lines[0])).toMatchObject({ method: "POST", path: "/v1/embed/generate-session", status: 200, durationMs: expect.any(Number), requestId: expect.any(String) });
    expect(all).toContain('"status":401');
    for (const secret of [KEYS.unscoped, "wrong-key-123", sessionId, "secret-user"]) expect(all).not.toContain(secret);
  });
});
