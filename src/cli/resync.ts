/** `npm run resync -- <directory> [--url … --admin-token …]`: the CLI's `resync` command (see src/cli/index.ts). */
import { runCli } from "./index";

void runCli([process.argv[0], "scim-bridge", "resync", ...process.argv.slice(2)]);
