/**
 * The simulator's test endpoints (`/_sim/state`, `/_sim/counts`, `/_sim/reset`, `/_sim/counters/reset`, `/_sim/faults`)
 * and every fault it injects: latency, per-key rate limit with Retry-After, 5xx, dropped connections, outage.
 */
import type { RunningSimulator } from "../../src/simulator";
import { simConfigSchema } from "../../src/simulator/config";
import { KEYS, generateSession, http, startTestSimulator } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());
const TOKEN = { "x-sim-token": "sim-admin-token" };
const deployments = (key: string = KEYS.unscoped) => http(sim).get("/api/v1/deployments").set("Authorization", `Bearer ${key}`);
const putFaults = (body: object) => http(sim).put("/_sim/faults").set(TOKEN).send(body);

describe("/_sim endpoints", () => {
  it("should answer 401 without the sim token header", async () => {
    expect((await http(sim).get("/_sim/state")).status).toBe(401);
    expect((await http(sim).get("/_sim/state").set("x-sim-token", "wrong")).status).toBe(401);
  });

  it("should count calls per endpoint, split into reads and writes", async () => {
    await deployments();
    await deployments();
    await generateSession(sim, { deploymentId: 1, externalId: "a" });
    const { counters } = (await http(sim).get("/_sim/state").set(TOKEN)).body;
    expect(counters.total).toEqual({ reads: 2, writes: 1 });
    expect(counters.endpoints).toEqual({ "GET /v1/deployments": { reads: 2, writes: 0 }, "POST /v1/embed/generate-session": { reads: 0, writes: 1 } });
  });

  it("should reset counters only, or everything", async () => {
    await generateSession(sim, { deploymentId: 1, externalId: "a" });
    await http(sim).post("/_sim/counters/reset").set(TOKEN);
    let state = (await http(sim).get("/_sim/state").set(TOKEN)).body;
    expect(state.counters.total).toEqual({ reads: 0, writes: 0 });
    expect(state.externalUserCount).toBe(1);
    await http(sim).post("/_sim/reset").set(TOKEN);
    state = (await http(sim).get("/_sim/state").set(TOKEN)).body;
    expect(state).toMatchObject({ externalUserCount: 0, tenants: {}, scim: { users: [], groups: [] }, sessionsIssued: 0 });
  });

  it("should count SCIM users, groups and member entries as the state lists them", async () => {
    const scim = (path: string) => http(sim).post(`/api/scim/v2${path}`).set("Authorization", `Bearer ${KEYS.unscoped}`);
    const ids: string[] = [];
    for (const userName of ["ann@x.com", "bob@x.com", "cy@x.com"]) ids.push((await scim("/Users").send({ userName })).body.id);
    await scim("/Groups").send({ displayName: "two", members: ids.slice(0, 2).map((value) => ({ value })) });
    await scim("/Groups").send({ displayName: "one", members: [{ value: ids[2] }] });
    await scim("/Groups").send({ displayName: "none" });
    const counts = (await http(sim).get("/_sim/counts").set(TOKEN)).body;
    const { scim: state } = (await http(sim).get("/_sim/state").set(TOKEN)).body;
    expect(counts).toEqual({ users: 3, groups: 3, members: 3 });
    expect(counts).toEqual({ users: state.users.length, groups: state.groups.length, members: state.groups.reduce((n: number, g: { members: unknown[] }) => n + g.members.length, 0) });
    expect((await http(sim).get("/_sim/counts")).status).toBe(401);
  });

  it("should reject invalid fault settings with 400", async () => {
    expect((await putFaults({ errors: { rate: 2 } })).status).toBe(400);
    expect((await putFaults({ outage: { mode: "503" } })).status).toBe(400);
  });
});

describe("simulator config", () => {
  it("should refuse a misspelt key in the config file, naming its path", () => {
    const parsed = simConfigSchema.safeParse({ paging: { scimMaxCuont: 10 } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => `${[...i.path, ...("keys" in i ? i.keys : [])].join(".")}`)).toEqual(["paging.scimMaxCuont"]);
  });

  it("should refuse a misspelt fault key at runtime with 400 and change nothing", async () => {
    const before = (await http(sim).get("/_sim/faults").set(TOKEN)).body;
    const res = await putFaults({ latency: { fixdMs: 50 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("fixdMs");
    expect((await http(sim).get("/_sim/faults").set(TOKEN)).body).toEqual(before);
  });
});

describe("fault injection", () => {
  it("should add the configured latency", async () => {
    await putFaults({ latency: { fixedMs: 120, jitterMs: 0 } });
    const t = Date.now();
    await deployments();
    expect(Date.now() - t).toBeGreaterThanOrEqual(115);
  });

  it("should answer 429 with Retry-After in seconds beyond the per-key rate limit", async () => {
    await putFaults({ rateLimit: { max: 2, durationMs: 1500 } });
    expect((await deployments()).status).toBe(200);
    expect((await deployments()).status).toBe(200);
    const res = await deployments();
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("2");
    // another key has its own budget
    expect((await deployments(KEYS.scoped)).status).toBe(200);
    expect(sim.state.snapshot().counters.faults.rateLimited).toBe(1);
  });

  it("should answer the configured 5xx for the next N requests, then recover", async () => {
    await putFaults({ errors: { next: 2, statuses: [502] } });
    expect([(await deployments()).status, (await deployments()).status, (await deployments()).status]).toEqual([502, 502, 200]);
  });

  it("should answer 5xx for every request at error rate 1", async () => {
    sim.setFaults({ errors: { rate: 1 } });
    for (let i = 0; i < 5; i++) expect([500, 502, 503]).toContain((await deployments()).status);
  });

  it("should drop the connection without an answer", async () => {
    await putFaults({ drop: { next: 1 } });
    await expect(fetch(`${sim.baseUrl}/v1/deployments`, { headers: { authorization: `Bearer ${KEYS.unscoped}` } })).rejects.toThrow();
    expect((await deployments()).status).toBe(200);
    expect(sim.state.snapshot().counters.faults.dropped).toBe(1);
  });

  it("should answer 503 during an outage window and recover after it", async () => {
    await putFaults({ outage: { forSeconds: 0.3, retryAfterSeconds: 1 } });
    const res = await deployments();
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    // the window ends on its own: answers turn 200 again (polled, however slow this machine is)
    let status = res.status;
    for (const end = Date.now() + 10_000; status === 503 && Date.now() < end; await new Promise((r) => setTimeout(r, 20))) status = (await deployments()).status;
    expect(status).toBe(200);
  });

  it("should drop every connection during a drop-mode outage given as an absolute time", async () => {
    await putFaults({ outage: { until: new Date(Date.now() + 60_000).toISOString(), mode: "drop" } });
    await expect(fetch(`${sim.baseUrl}/v1/deployments`)).rejects.toThrow();
    expect((await http(sim).get("/_sim/faults").set(TOKEN)).body.outage).toMatchObject({ mode: "drop" });
  });

  it("should apply faults from the config at start and restore them on reset", async () => {
    await sim.close();
    sim = await startTestSimulator({ faults: { errors: { rate: 1, statuses: [503] } } });
    expect((await deployments()).status).toBe(503);
    sim.setFaults({});
    expect((await deployments()).status).toBe(200);
    await http(sim).post("/_sim/reset").set(TOKEN);
    expect((await deployments()).status).toBe(503);
  });
});
