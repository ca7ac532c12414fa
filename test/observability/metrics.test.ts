import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { createMetrics, endpointLabel } from "../../src/observability/metrics";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";
import { hashToken } from "../../src/auth/token";

const METRICS_TOKEN = "metrics-token-for-tests-0001";

let e: SyncEnv;
let s: BridgeServer;
beforeAll(async () => {
  const metrics = createMetrics();
  e = await startSyncEnv({ runtime: false, config: { metrics: { tokenHashes: [hashToken(METRICS_TOKEN)] } } });
  // a runtime that records into the same registry as the server (as in the `all` role)
  e.runtime = await startSyncRuntime(e.config, createLogger("silent"), { env: { TEST_PLATFORM_KEY: "test-platform-key-0001" }, metrics });
  s = await startBridgeServer(e, createLogger("silent"), metrics);
});
afterAll(async () => { await s.close(); await e.close(); });

/** `# TYPE <name> <type>` lines of a Prometheus exposition. */
function families(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}

describe("GET /metrics", () => {
  it("should expose every family, with values from SCIM requests, jobs, platform calls and Redis-read gauges", async () => {
    const res = await e.scim("wf").post("/Users", userBody("metered@example.com"));
    await waitFor(async () => (await e.state.get("wf", "user", res.body.id)).status === "synced");
    await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { Authorization: "Bearer wf-token-1" } });
    await fetch(`${s.url}/scim/v2/no-such-dir/Users`);
    // answered past the directory's routes (the SCIM 404): still counted for its directory
    expect((await fetch(`${s.url}/scim/v2/wf/NoSuchEndpoint`, { headers: { Authorization: "Bearer wf-token-1" } })).status).toBe(404);
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${s.url}/metrics`, { headers: { Authorization: "Bearer wf-token-1" } })).status).toBe(401);
    const text = await (await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(Object.fromEntries(families(text))).toMatchObject({
      scim_requests_total: "counter", scim_request_duration_seconds: "histogram", sync_jobs_total: "counter",
      sync_job_duration_seconds: "histogram", platform_calls_total: "counter", platform_call_duration_seconds: "histogram",
      sync_queue_depth: "gauge", sync_items: "gauge", external_users: "gauge", directory_paused: "gauge", process_resident_memory_bytes: "gauge",
    });
    expect(text).toMatch(/^scim_requests_total\{directory="wf",method="GET",status="200"\} 1$/m);
    expect(text).toMatch(/^scim_requests_total\{directory="unauthenticated",method="GET",status="401"\} 1$/m);
    expect(text).toMatch(/^scim_requests_total\{directory="wf",method="GET",status="404"\} 1$/m);
    expect(text).toMatch(/^sync_jobs_total\{directory="wf",kind="user",outcome="created"\} 1$/m);
    expect(text).toMatch(/^platform_calls_total\{directory="wf",endpoint="POST \/scim\/v2\/Users",status="201"\} 1$/m);
    expect(text).toMatch(/^sync_items\{directory="wf",status="synced"\} 1$/m);
    expect(text).toMatch(/^directory_paused\{directory="wf"\} 0$/m);
    expect(text).toMatch(/^external_users\{directory="em"\} 0$/m);
    expect(text).toMatch(/^platform_healthy\{directory="wf"\} 1$/m);
  });

  it("should answer /healthz always and /readyz (server role) with Redis only, naming no directory", async () => {
    expect(await (await fetch(`${s.url}/healthz`)).json()).toEqual({ status: "ok" });
    const r = await fetch(`${s.url}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: "ready", checks: { redis: "ok" } });
  });
});

describe("endpointLabel", () => {
  it("should replace ids so the label stays bounded", () => {
    expect(endpointLabel("PUT", "/scim/v2/Users/abc-123")).toBe("PUT /scim/v2/Users/:id");
    expect(endpointLabel("DELETE", "/v1/embed-tenants/acme-co/groups/42")).toBe("DELETE /v1/embed-tenants/:tenant/groups/:id");
  });
});
