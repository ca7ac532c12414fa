#!/usr/bin/env node
/**
 * The `scim-bridge` command line (commander); after `npm run build` it is `dist/cli/index.js` (package.json
 * `bin`: `npx scim-bridge …`; in the image `scim-bridge` is on PATH):
 *   serve | worker | all          run the roles (as `node dist/main.js <role>`)
 *   resync <directory>            full resync with a progress bar and the final summary (exit 3: it awaits
 *                                 confirmation of its deprovisions); --dry-run: the plan only; --confirm / --cancel
 *   status [--json]               every directory at a glance
 *   explain <directory> <resource>   why a user or group is (not) on the platform, and what clears it
 *   sync-now <directory> <resource>  reconcile one user or group now, step by step
 *   resume <directory>            resume a paused directory
 *   retry-failed <directory>      queue every failed item again
 *   brake <directory> [confirm|cancel]  show the deprovision brake and what it holds (exit 3: it holds), or answer it
 *   keep-name <directory> <groupId>   a same-name group conflict: this group keeps the platform name
 *   handover <space> <resource> --to <directory>   hand a platform resource to another directory of its account
 *   logs <directory> [--status 4xx] [--follow] [--json]   the directory's SCIM request log (NDJSON with --json)
 *   token new <directory>         a fresh SCIM token (printed once) and the hash to put in config
 *   config check [--online]       validate the configuration, the environment it names and (online) the platform keys
 *   directory create|list|show|update|disable|enable|delete, directory token …, directory oauth …
 *                                 directories at runtime, through a running bridge's admin API only (--url)
 * status, resync, brake, explain, sync-now, resume and retry-failed work on Redis with this machine's configuration, or with `--url` (or
 * SCIM_BRIDGE_URL) through a running bridge's admin API with `--admin-token` (or SCIM_BRIDGE_ADMIN_TOKEN).
 */
import { randomBytes } from "node:crypto";
import { Command, Option } from "commander";
import { ConfigError, loadConfig } from "../config/load";
import { hashToken } from "../auth/token";
import { adminApiBackend } from "./backends/admin-api-backend";
import { UnknownDirectoryError, type OpsBackend } from "./backends/ops-backend";
import { redisBackend } from "./backends/redis-backend";
import { directoryCommands } from "./commands/directory";
import { logsCommand } from "./commands/logs";
import { RequestLogFilterError } from "../scim/request-log/request-log-query";
import { answerCommand, dryRunCommand, resyncCommand, retryFailedCommand, statusCommand } from "./commands/ops";
import { brakeCommand } from "./commands/brake";
import { explainCommand, resumeCommand, syncNowCommand } from "./commands/explain";
import { UnknownResourceError } from "../explain/errors";
import { userInfo } from "node:os";

const out = (s: string) => console.log(s);

/**
 * The roles (server, workers) load the whole application: required when one runs, so the operator
 * commands (`status` above all) start without loading it.
 */
const roles = () => require("../roles/run-roles") as typeof import("../roles/run-roles");

/** A command used the wrong way (exit 2, like a bad configuration). */
class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

function safeUser(): string {
  try { return userInfo().username; } catch { return "unknown"; }
}

function config() {
  return loadConfig();
}

interface RemoteOptions {
  url?: string;
  adminToken?: string;
}

/** `--url` and `--admin-token`, each also read from its environment variable. */
function remote(cmd: Command): Command {
  return cmd
    .addOption(new Option("--url <url>", "a running bridge's base URL (e.g. http://127.0.0.1:8080): go through its admin API instead of Redis").env("SCIM_BRIDGE_URL"))
    .addOption(new Option("--admin-token <token>", "the admin token for --url").env("SCIM_BRIDGE_ADMIN_TOKEN"));
}

/** Runs `fn` on the admin API when a URL is given, else on Redis with the local configuration. */
async function withBackend<T>(o: RemoteOptions, fn: (b: OpsBackend) => Promise<T>): Promise<T> {
  let b: OpsBackend;
  if (o.url) {
    if (!o.adminToken) throw new UsageError("--url needs the admin token: --admin-token <token> or SCIM_BRIDGE_ADMIN_TOKEN");
    b = adminApiBackend(o.url, o.adminToken);
  } else {
    b = await redisBackend(config());
  }
  try {
    return await fn(b);
  } finally {
    await b.close();
  }
}

/** Builds the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("scim-bridge").description("SCIM 2.0 provisioning bridge").showHelpAfterError();
  program.command("serve").description("run the SCIM server, admin API and status page").action(() => roles().runRoles(config(), "server"));
  program.command("worker").description("run the sync workers").action(() => roles().runRoles(config(), "worker"));
  program.command("all").description("run the server and the workers in one process").action(() => roles().runRoles(config(), "all"));
  remote(program.command("resync").argument("<directory>").description("full resync of a directory, following its progress")
    .option("--dry-run", "report the full plan (create, update, deprovision) and write nothing")
    .option("--confirm", "deprovision what a resync awaiting confirmation holds")
    .option("--cancel", "drop what a resync awaiting confirmation holds; nothing is deprovisioned")
    .option("--by <name>", "who answers, for the audit (default: this system user)"))
    .action(async (dir: string, o: RemoteOptions & { dryRun?: boolean; confirm?: boolean; cancel?: boolean; by?: string }) => {
      if ([o.dryRun, o.confirm, o.cancel].filter(Boolean).length > 1) throw new UsageError("--dry-run, --confirm and --cancel exclude each other");
      const by = `${o.by ?? safeUser()} (cli)`;
      if (o.dryRun) { await withBackend(o, (b) => dryRunCommand(b, dir, by, out)); return; }
      if (o.confirm || o.cancel) {
        const ok = await withBackend(o, (b) => answerCommand(b, dir, o.confirm ? "confirm" : "cancel", by, out));
        process.exitCode = ok ? 0 : 1;
        return;
      }
      const p = await withBackend(o, (b) => resyncCommand(b, dir, out));
      // 3: the resync holds deprovisions and waits for --confirm or --cancel
      process.exitCode = p.phase === "failed" ? 1 : p.status === "awaiting-confirmation" ? 3 : 0;
    });
  remote(program.command("brake").argument("<directory>").argument("[answer]", "confirm (apply every held deprovision) or cancel (keep them active)")
    .option("--by <name>", "who answers, for the audit (default: this system user)")
    .description("show a directory's deprovision brake and what it holds, or answer it (exit 3: it holds deprovisions)"))
    .action(async (dir: string, answer: string | undefined, o: RemoteOptions & { by?: string }) => {
      if (answer !== undefined && answer !== "confirm" && answer !== "cancel") throw new UsageError("the answer is confirm or cancel");
      process.exitCode = await withBackend(o, (b) => brakeCommand(b, dir, answer as "confirm" | "cancel" | undefined, `${o.by ?? safeUser()} (cli)`, out));
    });
  remote(program.command("status").option("--json", "print JSON").description("every directory: in sync / syncing / failing / paused"))
    .action((o: RemoteOptions & { json?: boolean }) => withBackend(o, (b) => statusCommand(b, !!o.json, out)));
  remote(program.command("explain").argument("<directory>").argument("<resource>", "a user's SCIM id or userName, or a group's SCIM id or displayName")
    .option("--json", "print JSON").description("why a user or group is (not) on the platform: desired, applied, the platform's record, the blocker and its fix"))
    .action(async (dir: string, resource: string, o: RemoteOptions & { json?: boolean }) => { await withBackend(o, (b) => explainCommand(b, dir, resource, !!o.json, out)); });
  remote(program.command("sync-now").argument("<directory>").argument("<resource>", "a user's SCIM id or userName, or a group's SCIM id or displayName")
    .option("--by <name>", "who asks, for the activity trail (default: this system user)").option("--json", "print JSON")
    .description("reconcile one user or group now and show each step's result (exit 1: it failed)"))
    .action(async (dir: string, resource: string, o: RemoteOptions & { by?: string; json?: boolean }) => {
      const r = await withBackend(o, (b) => syncNowCommand(b, dir, resource, `${o.by ?? safeUser()} (cli)`, !!o.json, out));
      process.exitCode = r.outcome === "error" ? 1 : 0;
    });
  remote(program.command("resume").argument("<directory>").description("resume a paused directory: its backlog is admitted again"))
    .action((dir: string, o: RemoteOptions) => withBackend(o, (b) => resumeCommand(b, dir, out)));
  remote(program.command("retry-failed").argument("<directory>").description("queue every failed item of a directory again"))
    .action((dir: string, o: RemoteOptions) => withBackend(o, (b) => retryFailedCommand(b, dir, out)));
  remote(program.command("keep-name").argument("<directory>").argument("<groupId>", "the SCIM id of the group the IdP uses")
    .option("--by <name>", "who decides, for the log")
    .description("resolve a same-name group conflict: this group keeps the platform name, the group holding it is displaced"))
    .action(async (dir: string, groupId: string, o: RemoteOptions & { by?: string }) => {
      const r = await withBackend(o, async (b) => { await b.requireDirectory(dir); return b.keepName(dir, groupId, `${o.by ?? safeUser()} (cli)`); });
      if (!r.ok) { console.error(`scim-bridge: ${r.error}`); process.exitCode = 1; return; }
      out(`group ${r.group} of ${dir} keeps the platform name "${r.name}"${r.displaced ? `; group ${r.displaced} no longer has it` : ""}`);
    });
  remote(program.command("handover").argument("<space>", "u | g (workforce platform user / group id), eu (embed externalId), eg:<tenant> (embed-tenant group name)")
    .argument("<resource>", "the platform id, externalId or group name").requiredOption("--to <directory>", "the directory that manages it from now on")
    .option("--from <directory>", "only if this directory manages it now").option("--by <name>", "who hands it over, for the log")
    .description("hand a platform resource over to another directory of the same platform account"))
    .action(async (space: string, resource: string, o: RemoteOptions & { to: string; from?: string; by?: string }) => {
      const r = await withBackend(o, (b) => b.handOver({ space, resource, to: o.to, from: o.from }, `${o.by ?? safeUser()} (cli)`));
      if (!r.ok) { console.error(`scim-bridge: ${r.error}`); process.exitCode = r.status === 400 ? 2 : 1; return; }
      out(`${r.resource} (${r.space}) handed over from ${r.from ?? "nobody"} to ${r.to} on platform account ${r.account}; ${r.requeued} failed item(s) of ${r.to} queued again`);
    });
  remote(program.command("logs").argument("<directory>").description("the directory's SCIM request log, newest first")
    .option("--status <status>", "401, 4xx, 5xx, … (an exact status or a class)").option("--method <method>", "GET, POST, PUT, PATCH, DELETE")
    .option("--resource <idOrName>", "a resource id, userName or displayName").option("--since <time>", "ISO 8601 time").option("--until <time>", "ISO 8601 time")
    .option("--q <text>", "text anywhere in the entry, bodies included").option("--limit <n>", "entries (1–200, default 50)")
    .option("--follow", "then print new requests as they arrive").option("--json", "one JSON entry per line (NDJSON), bodies included"))
    .action((dir: string, o: RemoteOptions & { status?: string; method?: string; resource?: string; since?: string; until?: string; q?: string; limit?: string; follow?: boolean; json?: boolean }) =>
      withBackend(o, (b) => logsCommand(b, dir, { status: o.status, method: o.method, resource: o.resource, since: o.since, until: o.until, q: o.q, limit: o.limit },
        { json: !!o.json, follow: !!o.follow }, out)));
  const token = program.command("token").description("SCIM tokens");
  token.command("new").argument("<directory>").description("print a fresh token once, and the hash to add to the directory's tokenHashes")
    .action((dir: string) => {
      const t = randomBytes(32).toString("base64url");
      out(`token for ${dir} (shown once; give it to the IdP as the bearer token):\n  ${t}\nadd this to directories[id="${dir}"].tokenHashes:\n  "sha256:${hashToken(t)}"`);
    });
  directoryCommands(program, remote, (o) => {
    const { url, adminToken } = o as RemoteOptions;
    if (!url) throw new UsageError("directory commands go through a running bridge: --url <bridge URL> (or SCIM_BRIDGE_URL)");
    if (!adminToken) throw new UsageError("--url needs the admin token: --admin-token <token> or SCIM_BRIDGE_ADMIN_TOKEN");
    return { url, token: adminToken };
  }, out);
  const cfg = program.command("config").description("configuration");
  cfg.command("check").option("--online", "also check with the platform that each directory's key works and covers its deployment")
    .description("validate the configuration (files and environment), the variables it names and the platform URLs")
    .action(async (o: { online?: boolean }) => {
      // the check loads the platform client (its online part calls the platform): required when it runs
      const { configCheckCommand } = require("./commands/config-check") as typeof import("./commands/config-check");
      process.exitCode = await configCheckCommand(config(), process.env, !!o.online, out, (s) => console.error(s));
    });
  return program;
}

/** Runs the program on `argv` (process.argv form); a failure is printed and sets the exit code (2: usage or configuration). */
export function runCli(argv: string[]): Promise<void> {
  return buildProgram().parseAsync(argv).then(() => undefined, (err: Error) => {
    console.error(err instanceof ConfigError ? err.message : `scim-bridge: ${err.message}`);
    process.exit(err instanceof ConfigError || err instanceof UnknownDirectoryError || err instanceof UsageError || err instanceof RequestLogFilterError
      || err instanceof UnknownResourceError ? 2 : 1);
  });
}

if (require.main === module) void runCli(process.argv);
