/**
 * `npm run demo`: the service for real, on this machine — the SCIM server, the sync workers and the
 * platform simulator in one process. Directories: `demo` (workforce target) at
 * http://127.0.0.1:$PORT/scim/v2/demo and `demo-embed` (embed target), tokens from DEMO_SCIM_TOKEN (or
 * fresh ones, printed). The directories live only in this process's configuration, so the demo prints how
 * to point the CLI at its admin API (SCIM_BRIDGE_URL, SCIM_BRIDGE_ADMIN_TOKEN). Redis at REDIS_URL
 * (default redis://127.0.0.1:6379; a private redis-server is started if none answers), or the Redis
 * Cluster / Sentinel that REDIS_CLUSTER_NODES / REDIS_SENTINELS name. The simulator
 * listens on SIM_PORT (default 8090; 0: a free port); a SCIM push shows up in its state at
 * http://127.0.0.1:$SIM_PORT/_sim/state (header x-sim-token). Both directories declare one custom User
 * extension (CostCenterCode), mapped to an embed user attribute in `demo-embed`. Stops cleanly on SIGINT/SIGTERM.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { loadConfig, ConfigError } from "../config/load";
import { createLogger } from "../observability/logger";
import { hashToken } from "../auth/token";
import { createMetrics } from "../observability/metrics";
import { startServer } from "../roles/server";
import { startSimulator } from "../simulator/start-simulator";
import { startSyncRuntime } from "../roles/worker";
import { stopRoles } from "../roles/run-roles";
import { ensureRedis } from "./local-redis";
import { redisTarget } from "../store/connection";

/** The custom attribute an Entra or Okta admin maps in the docs' walk-through (docs/entra.md, docs/okta.md). */
const DEMO_EXTENSION = {
  urn: "urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User",
  description: "Custom attributes mapped in the IdP",
  attributes: [{ name: "CostCenterCode", type: "string", description: "Cost centre code" }],
};
async function main(): Promise<void> {
  const port = process.env.PORT ?? "8080";
  const simPort = Number(process.env.SIM_PORT ?? 8090);
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const token = process.env.DEMO_SCIM_TOKEN || randomBytes(24).toString("base64url");
  const embedToken = `${token}-embed`;
  const platformKey = process.env.DEMO_PLATFORM_API_KEY || randomBytes(24).toString("base64url");
  const simToken = process.env.DEMO_SIM_TOKEN || "demo-sim-token";
  const adminToken = process.env.DEMO_ADMIN_TOKEN || randomBytes(24).toString("base64url");
  // a cluster or Sentinel named in the environment is used as it is: no private redis-server for those
  const elsewhere = !!(process.env.REDIS_CLUSTER_NODES || process.env.REDIS_SENTINELS);
  const redisChild = elsewhere ? undefined : await ensureRedis(redisUrl, path.resolve(process.cwd(), ".data/redis"), (m) => console.log(m));

  const sim = await startSimulator({
    port: simPort, host: "127.0.0.1",
    config: {
      tenant: { name: "demo-account", useCreatorMode: true },
      apiKeys: [{ name: "demo-bridge", key: platformKey }],
      deployments: [{ id: 1, name: "production" }],
      admin: { header: "x-sim-token", token: simToken },
    },
  });
  const platform = { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: "DEMO_PLATFORM_API_KEY" };
  const config = loadConfig({
    env: { ...process.env, PORT: port, REDIS_URL: redisUrl },
    overrides: {
      server: { host: "127.0.0.1", publicBaseUrl: process.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${port}` },
      sync: { sweepIntervalMs: 2000 },
      admin: { tokenHashes: [hashToken(adminToken)] },
      metrics: { workerPort: 0 },
      directories: [
        { id: "demo", displayName: "Demo directory (workforce)", tokenHashes: [hashToken(token)], target: "workforce", platform, extensions: [DEMO_EXTENSION] },
        {
          id: "demo-embed", displayName: "Demo directory (embed)", tokenHashes: [hashToken(embedToken)], target: "embed", platform, extensions: [DEMO_EXTENSION],
          embed: { tenantName: "demo-embed", attributeMapping: [
            { scim: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", name: "department", type: "string" },
            { scim: `${DEMO_EXTENSION.urn}:CostCenterCode`, name: "costCenter", type: "string" },
          ] },
        },
      ],
    },
  });
  const logger = createLogger(process.env.LOG_LEVEL ?? "warn");
  const env = { ...process.env, DEMO_PLATFORM_API_KEY: platformKey };
  const metrics = createMetrics();
  const server = await startServer(config, logger, { metrics });
  const runtime = await startSyncRuntime(config, logger, { env, metrics });
  // the simulator starts empty each time while Redis keeps the directories: a resync puts them back
  for (const d of config.directories) await runtime.queues.enqueueResync(d.id, "demo start");
  console.log(`scim-bridge demo (SCIM server + sync workers + platform simulator)
  SCIM base URL: ${server.url}/scim/v2/demo          (workforce target)
  Bearer token:  ${token}
  SCIM base URL: ${server.url}/scim/v2/demo-embed    (embed target, tenant "demo-embed")
  Bearer token:  ${embedToken}
  Redis:         ${redisTarget(config.redis)}${redisChild ? " (private redis-server started by the demo)" : ""}
  Simulator:     ${sim.baseUrl}   state: curl -H "x-sim-token: ${simToken}" ${sim.url}/_sim/state
  Status page:   ${server.url}/admin/status   admin token: ${adminToken}
  Metrics:       ${server.url}/metrics   health: ${server.url}/readyz
Try: curl -H "Authorization: Bearer ${token}" ${server.url}/scim/v2/demo/Users
The command line, from another terminal in this directory (through the demo's admin API):
  export SCIM_BRIDGE_URL=${server.url} SCIM_BRIDGE_ADMIN_TOKEN=${adminToken}
  npm run cli -- status
  npm run cli -- resync demo
  npm run cli -- retry-failed demo
  (after \`npm run build\`: npx scim-bridge status, or node dist/cli/index.js status)
Stop with Ctrl-C.`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("stopping…");
    const code = await stopRoles({ server, runtime, logger, signal: "SIGINT/SIGTERM", timeoutMs: config.shutdown.timeoutMs });
    await sim.close();
    redisChild?.kill("SIGTERM");
    process.exit(code);
  };
  // `on`, not `once`: a second Ctrl-C while the stop runs must not cut it short
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

main().catch((err: Error) => {
  console.error(err instanceof ConfigError ? err.message : `demo failed: ${err.message}`);
  process.exit(1);
});
