/**
 * A sync worker in its own process, for tests that kill one (`node_modules/.bin/tsx` on this file). It
 * loads the configuration the normal way (SCIM_BRIDGE_CONFIG_JSON carries the test's config), starts the
 * sync runtime with this process's environment (the platform keys) and the consumer name in
 * SYNC_WORKER_CONSUMER, prints "ready" on stdout, and closes gracefully on SIGTERM.
 */
import { loadConfig } from "../../src/config/load";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";

async function main(): Promise<void> {
  const config = loadConfig();
  const runtime = await startSyncRuntime(config, createLogger("silent"), { env: process.env, consumer: process.env.SYNC_WORKER_CONSUMER });
  process.once("SIGTERM", () => {
    void runtime.close().then(() => process.exit(0));
  });
  process.stdout.write("ready\n");
}

main().catch((err: Error) => {
  process.stderr.write(`sync worker failed to start: ${err.message}\n`);
  process.exit(1);
});
