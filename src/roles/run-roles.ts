/** Runs the server and/or worker roles until SIGINT/SIGTERM (the `serve`, `worker`, `all` commands and main.ts). */
import type { Config } from "../config/schema";
import { createLogger } from "../observability/logger";
import { createMetrics } from "../observability/metrics";
import { startServer, startWorkerEndpoints } from "./server";
import { RoleProbe } from "../observability/health";
import { startSyncRuntime, type SyncRuntime } from "./worker";
import type { Logger } from "pino";

export type { Role } from "../observability/health";
import type { Role } from "../observability/health";

export async function runRoles(config: Config, role: Role): Promise<void> {
  const logger = createLogger(config.log.level);
  const metrics = createMetrics();
  const probe = new RoleProbe(role);
  const server = role !== "worker" ? await startServer(config, logger, { metrics, probe }) : await startWorkerEndpoints(config, metrics, logger, probe);
  const runtime = role !== "server" ? await startSyncRuntime(config, logger, { metrics }) : undefined;
  if (runtime) probe.attachWorkers(() => runtime.canTakeJobs(), () => runtime.notServed().size);
  logger.info({ role, url: server?.url, directories: config.directories.map((d) => d.id) }, "scim-bridge started");
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.exit(await stopRoles({ server, runtime, logger, signal, timeoutMs: config.shutdown.timeoutMs }));
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

export interface StopDeps {
  server?: { close(): Promise<void> };
  runtime?: SyncRuntime;
  logger: Logger;
  signal: string;
  /** `shutdown.timeoutMs`. */
  timeoutMs: number;
}

/**
 * The graceful stop of a process's roles: no new requests, then the active jobs finished; resolves with
 * the exit code. Before, every role hung on SIGTERM while Redis was unreachable, until killed: closing
 * waited on commands queued for a Redis that was not there. Now:
 * - with the worker's Redis down, nothing can be finished (no result could be recorded): the stop ends at
 *   once, code 1, and the active jobs run again on another worker once their lock expires;
 * - otherwise, a stop that takes longer than `timeoutMs` (Redis lost meanwhile) ends then, code 1.
 */
export async function stopRoles({ server, runtime, logger, signal, timeoutMs }: StopDeps): Promise<number> {
  logger.info({ signal }, "shutting down: no new requests, finishing active jobs");
  const stopped = (async () => {
    await server?.close();
    if (runtime && !runtime.redisReady()) {
      logger.error({ signal }, "shutting down with Redis unreachable: nothing can be finished; active jobs run again on another worker once their lock expires");
      return 1;
    }
    await runtime?.close();
    return 0;
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      logger.error({ signal, timeoutMs }, "shutdown did not finish within shutdown.timeoutMs (Redis unreachable?): exiting now; active jobs run again on another worker once their lock expires");
      resolve(1);
    }, timeoutMs);
  });
  const code = await Promise.race([stopped, late]);
  clearTimeout(timer);
  return code;
}
