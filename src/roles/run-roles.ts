/** Runs the server and/or worker roles until SIGINT/SIGTERM (the `serve`, `worker`, `all` commands and main.ts). */
import type { Config } from "../config/schema";
import { createLogger } from "../observability/logger";
import { createMetrics } from "../observability/metrics";
import { startServer, startWorkerEndpoints } from "./server";
import { RoleProbe } from "../ops/health";
import { startSyncRuntime } from "./worker";

export type { Role } from "../ops/health";
import type { Role } from "../ops/health";

export async function runRoles(config: Config, role: Role): Promise<void> {
  const logger = createLogger(config.log.level);
  const metrics = createMetrics();
  const probe = new RoleProbe(role);
  const server = role !== "worker" ? await startServer(config, logger, { metrics, probe }) : await startWorkerEndpoints(config, metrics, logger, probe);
  const runtime = role !== "server" ? await startSyncRuntime(config, logger, { metrics }) : undefined;
  if (runtime) probe.attachWorkers(() => runtime.canTakeJobs());
  logger.info({ role, url: server?.url, directories: config.directories.map((d) => d.id) }, "scim-bridge started");
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: no new requests, finishing active jobs");
    await server?.close();
    await runtime?.close();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}
