/** Starts the real HTTP server (SCIM + admin + health + metrics) on port 0 for a sync environment. */
import { hashToken } from "../../src/auth/token";
import { createLogger } from "../../src/observability/logger";
import { createMetrics, type Metrics } from "../../src/observability/metrics";
import { startServer, type RunningServer } from "../../src/roles/server";
import type { SyncEnv } from "./sync-env";
import type { Logger } from "pino";

export const ADMIN_TOKEN = "admin-token-for-tests-0001";

export interface BridgeServer extends RunningServer {
  metrics: Metrics;
  admin(path: string, init?: RequestInit): Promise<Response>;
}

export async function startBridgeServer(e: SyncEnv, logger: Logger = createLogger("silent"), metrics = createMetrics()): Promise<BridgeServer> {
  const config = { ...e.config, server: { ...e.config.server, host: "127.0.0.1", port: 0 }, admin: { tokenHashes: [hashToken(ADMIN_TOKEN)] } };
  const server = await startServer(config, logger, { metrics });
  return {
    ...server, metrics,
    admin: (path, init = {}) => fetch(`${server.url}/admin${path}`, {
      ...init, headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json", ...(init.headers as Record<string, string> ?? {}) },
    }),
  };
}
