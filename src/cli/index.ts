#!/usr/bin/env node
/**
 * The `scim-bridge` command line (commander):
 *   serve | worker | all          run the roles (as `node dist/main.js <role>`)
 *   resync <directory>            full resync with a progress bar and the final summary
 *   status [--json]               every directory at a glance
 *   retry-failed <directory>      queue every failed item again
 *   token new <directory>         a fresh SCIM token (printed once) and the hash to put in config
 *   config check                  validate the configuration and say what it holds
 */
import { randomBytes } from "node:crypto";
import { Command } from "commander";
import { ConfigError, loadConfig } from "../config/load";
import { hashToken } from "../auth/token";
import { runRoles } from "../roles/run-roles";
import { UnknownDirectoryError, resyncCommand, retryFailedCommand, statusCommand } from "./commands/ops";

const out = (s: string) => console.log(s);

function config() {
  return loadConfig();
}

/** Builds the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("scim-bridge").description("SCIM 2.0 provisioning bridge").showHelpAfterError();
  program.command("serve").description("run the SCIM server, admin API and status page").action(() => runRoles(config(), "server"));
  program.command("worker").description("run the sync workers").action(() => runRoles(config(), "worker"));
  program.command("all").description("run the server and the workers in one process").action(() => runRoles(config(), "all"));
  program.command("resync").argument("<directory>").description("full resync of a directory, following its progress")
    .action(async (dir: string) => { const p = await resyncCommand(config(), dir, out); process.exitCode = p.phase === "failed" ? 1 : 0; });
  program.command("status").option("--json", "print JSON").description("every directory: in sync / syncing / failing / paused")
    .action((o: { json?: boolean }) => statusCommand(config(), !!o.json, out));
  program.command("retry-failed").argument("<directory>").description("queue every failed item of a directory again")
    .action((dir: string) => retryFailedCommand(config(), dir, out));
  const token = program.command("token").description("SCIM tokens");
  token.command("new").argument("<directory>").description("print a fresh token once, and the hash to add to the directory's tokenHashes")
    .action((dir: string) => {
      const t = randomBytes(32).toString("base64url");
      out(`token for ${dir} (shown once; give it to the IdP as the bearer token):\n  ${t}\nadd this to directories[id="${dir}"].tokenHashes:\n  "sha256:${hashToken(t)}"`);
    });
  const cfg = program.command("config").description("configuration");
  cfg.command("check").description("validate the configuration (files and environment)").action(() => {
    const c = config();
    out(`configuration OK: ${c.directories.length} directories (${c.directories.map((d) => `${d.id}:${d.target}`).join(", ") || "none"}), Redis ${c.redis.url.replace(/\/\/[^@]*@/, "//***@")}, port ${c.server.port}`);
  });
  return program;
}

if (require.main === module) {
  buildProgram().parseAsync(process.argv).catch((err: Error) => {
    console.error(err instanceof ConfigError ? err.message : `scim-bridge: ${err.message}`);
    process.exit(err instanceof ConfigError || err instanceof UnknownDirectoryError ? 2 : 1);
  });
}
