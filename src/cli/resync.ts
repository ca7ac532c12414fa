/** `npm run resync -- <directory>`: the CLI's `resync` command (see src/cli/index.ts). */
import { ConfigError, loadConfig } from "../config/load";
import { resyncCommand } from "./commands/ops";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: npm run resync -- <directory>");
  process.exit(2);
}
resyncCommand(loadConfig(), dir, (s) => console.log(s))
  .then((p) => process.exit(p.phase === "failed" ? 1 : 0))
  .catch((err: Error) => {
    console.error(err instanceof ConfigError ? err.message : `resync failed: ${err.message}`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
