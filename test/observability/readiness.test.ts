/**
 * Readiness says what it means (issue 9 item 3): /readyz per role — a server is ready when Redis answers,
 * whatever a directory's platform does; a worker when its sync workers run (and no longer once it stops).
 * A directory's platform health is in the admin API, the status page and /metrics, and recovers without
 * a restart: after a successful call, and by the periodic re-verification. Unauthenticated /healthz,
 * /readyz and /metrics name no directory and carry no platform error text.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { createLogger } from "../../src/observability/logger";
import { createMetrics } from "../../src/observability/metrics";
import { RoleProbe } from "../../src/observability/health";
import { startWorkerEndpoints } from "../../src/roles/server";
import { SIM_TOKEN } from "../helpers/sync-env";
import { freePort } from "../helpers/free-port";

/** The simulator's faults (PUT /_sim/faults replaces them all). */
async function setFaults(e: SyncEnv, faults: object): Promise<void> {
  const res = await fetch(`${e.sim.url}/_sim/faults`, { method: "PUT", headers: { "x-sim-token": SIM_TOKEN, "Content-Type": "application/json" }, body: JSON.stringify(faults) });
  expect(res.status).toBeLessThan(300);
}

async function platformKey(s: BridgeServer, dir: string): Promise<{ status: string; healthy: boolean; checkedAt: string | null }> {
  return (await (await s.admin(`/directories/${dir}`)).json()).platformKey;
}

const OUTAGE = { rateLimit: null, outage: { forSeconds: 3600 } };

describe("platform health after a successful call", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  beforeAll(async () => {
    // the platform is down when the worker starts, and the periodic re-check is far away
    e = await startSyncEnv({ sim: { faults: OUTAGE }, config: { sync: { keyCheckIntervalMs: 3600000, attempts: 50, backoffMs: 100, maxBackoffMs: 200 } } });
    s = await startBridgeServer(e);
  });
  afterAll(async () => { await s.close(); await e.close(); });

  it("should keep the server ready while a directory's platform is down, and reveal nothing of it unauthenticated", async () => {
    await waitFor(async () => (await platformKey(s, "wf")).status.startsWith("unverified"), 20000, "the key unverified");
    const r = await fetch(`${s.url}/readyz`);
    expect(r.status).toBe(200);
    for (const path of ["/readyz", "/healthz", "/metrics"]) {
      const text = await (await fetch(`${s.url}${path}`)).text();
      expect([path, text]).not.toEqual([path, expect.stringMatching(/"wf"|"em"|directory="(wf|em)"|unverified|outage|Service Unavailable/)]);
    }
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    const label = (await (await s.admin("/directories/wf")).json()).metricsLabel as string;
    expect(label).toMatch(/^d-[0-9a-f]{12}$/);
    expect(metrics).toContain(`platform_healthy{directory="${label}"} 0`);
    // the directory's own page, behind the admin token, says what the key check met and since when
    const page = await (await s.admin("/status/wf", { headers: { Accept: "text/html" } })).text();
    expect(page).toContain("unverified");
    expect(page).toContain("unreachable since");
  });

  it("should turn healthy on the directory's next successful call, without a restart", async () => {
    const created = await e.scim("wf").post("/Users", userBody("health@example.com"));
    expect(created.status).toBe(201);
    expect((await platformKey(s, "wf")).healthy).toBe(false);
    await setFaults(e, { rateLimit: null });
    await waitFor(async () => (await e.state.get("wf", "user", created.body.id)).status === "synced", 20000, "the user synced");
    await waitFor(async () => (await platformKey(s, "wf")).healthy, 10000, "wf healthy");
    expect((await platformKey(s, "wf")).status).toBe("ok");
    const label = (await (await s.admin("/directories/wf")).json()).metricsLabel as string;
    expect(await (await fetch(`${s.url}/metrics`)).text()).toContain(`platform_healthy{directory="${label}"} 1`);
    // em made no call: it stays unverified until its re-check
    expect((await platformKey(s, "em")).healthy).toBe(false);
  });
});

describe("platform health re-verified periodically", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  beforeAll(async () => {
    e = await startSyncEnv({ sim: { faults: OUTAGE }, config: { sync: { keyCheckIntervalMs: 300 } } });
    s = await startBridgeServer(e);
  });
  afterAll(async () => { await s.close(); await e.close(); });

  it("should recover a key left unverified at start once the platform answers again", async () => {
    await waitFor(async () => (await platformKey(s, "em")).status.startsWith("unverified"), 20000, "the key unverified");
    await setFaults(e, { rateLimit: null });
    await waitFor(async () => (await platformKey(s, "em")).healthy && (await platformKey(s, "wf")).healthy, 20000, "both healthy");
  });
});

describe("worker readiness", () => {
  let e: SyncEnv;
  beforeAll(async () => { e = await startSyncEnv({ runtime: false }); });
  afterAll(async () => e.close());

  it("should be ready when its workers run and not once they stop", async () => {
    const probe = new RoleProbe("worker");
    const config = { ...e.config, server: { ...e.config.server, host: "127.0.0.1" }, metrics: { ...e.config.metrics, workerPort: await freePort() } };
    const endpoints = (await startWorkerEndpoints(config, createMetrics(), createLogger("silent"), probe))!;
    try {
      let r = await fetch(`${endpoints.url}/readyz`);
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({ status: "not ready", checks: { redis: "ok", jobs: "starting" } });
      const runtime = await e.startRuntime();
      probe.attachWorkers(() => runtime.canTakeJobs());
      r = await fetch(`${endpoints.url}/readyz`);
      expect(await r.json()).toEqual({ status: "ready", checks: { redis: "ok", jobs: "ok" } });
      await runtime.close();
      e.runtime = undefined;
      r = await fetch(`${endpoints.url}/readyz`);
      expect(r.status).toBe(503);
      expect(await r.json()).toEqual({ status: "not ready", checks: { redis: "ok", jobs: "stopped" } });
    } finally {
      await endpoints.close();
    }
  });
});
