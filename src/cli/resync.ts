/** `npm run resync -- <directory>`: the CLI's `resync` command (see src/cli/index.ts). */
import { ConfigError, loadConfig } from "../config/load";
import { resyncCommand } from "./commands/ops";

function main(): void {
  const dir = process.argv[2];
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  if (!dir || !config.directories.some((d) => d.id === dir)) {
    console.error(`usage: npm run resync -- <directory>   (configured: ${config.directories.map((d) => d.id).join(", ") || "none"})`);
    process.exit(2);
  }
  resyncCommand(config, dir, (s) => console.log(s))
    .then((p) => process.exit(p.phase === "failed" ? 1 : 0))
    .catch((err: Error) => {
      console.error(err instanceof ConfigError ? err.message : `resync failed: ${err.message}`);
      process.exit(1);
    });
}

main();
