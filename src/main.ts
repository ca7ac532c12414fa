/**
 * Process entry point: `node dist/main.js [server|worker|all]` (default: server). Wires config, logger and
 * the chosen role; nothing else lives here.
 */
import { loadConfig, ConfigError } from "./config/load";
import { createLogger } from "./observability/logger";
import { startServer } from "./server";

async function main(): Promise<void> {
  const role = process.argv[2] ?? process.env.ROLE ?? "server";
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) { console.error(err.message); process.exit(2); }
    throw err;
  }
  const logger = createLogger(config.log.level);
  if (role !== "server") { logger.fatal({ role }, "unknown role (expected server)"); process.exit(2); }
  const server = await startServer(config, logger);
  logger.info({ url: server.url, directories: config.directories.map((d) => d.id) }, "scim server listening");
  const stop = async (signal: string) => {
    logger.info({ signal }, "shutting down");
    await server.close();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err: Error) => {
  console.error(`scim-bridge failed to start: ${err.message}`);
  process.exit(1);
});
