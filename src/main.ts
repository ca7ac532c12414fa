/**
 * Process entry point: `node dist/main.js [server|worker|all]` (default: all; or ROLE). Wires config,
 * logger and the chosen roles; nothing else lives here.
 */
import { loadConfig, ConfigError } from "./config/load";
import { createLogger } from "./observability/logger";
import { startServer } from "./server";
import { startSyncRuntime } from "./sync/runtime";

const ROLES = ["server", "worker", "all"];

async function main(): Promise<void> {
  const role = process.argv[2] ?? process.env.ROLE ?? "all";
  if (!ROLES.includes(role)) {
    console.error(`unknown role "${role}": expected one of ${ROLES.join(", ")}`);
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) { console.error(err.message); process.exit(2); }
    throw err;
  }
  const logger = createLogger(config.log.level);
  const server = role !== "worker" ? await startServer(config, logger) : undefined;
  const runtime = role !== "server" ? await startSyncRuntime(config, logger) : undefined;
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

main().catch((err: Error) => {
  console.error(`scim-bridge failed to start: ${err.message}`);
  process.exit(1);
});
