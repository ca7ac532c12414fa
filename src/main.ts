/**
 * Process entry point: `node dist/main.js [server|worker|all]` (default: all; or ROLE). The same roles are
 * the CLI's `serve`, `worker` and `all` commands.
 */
import { loadConfig, ConfigError } from "./config/load";
import { runRoles, type Role } from "./roles/run-roles";

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
  await runRoles(config, role as Role);
}

main().catch((err: Error) => {
  console.error(`scim-bridge failed to start: ${err.message}`);
  process.exit(1);
});
