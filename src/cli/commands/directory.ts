/**
 * `scim-bridge directory …`: directories at runtime through a running bridge's admin API (`--url`,
 * `--admin-token`, or SCIM_BRIDGE_URL / SCIM_BRIDGE_ADMIN_TOKEN): create, list, show, update, disable,
 * enable, delete, and their tokens and OAuth client secrets. Secrets are printed once, when made.
 */
import fs from "node:fs";
import readline from "node:readline/promises";
import type { Command } from "commander";
import type { DirectoryStatus } from "../../admin/directory-status";
import type { ResyncProgress } from "../../sync/resync/resync";
import type { PlanItem } from "../../sync/resync/plan";
import { adminCall, expectOk, type AdminTarget } from "../backends/admin-http";

type Out = (s: string) => void;

/** A directory given as `--file <path>` or `--json '<json>'`. */
export function directoryInput(o: { file?: string; json?: string }): unknown {
  if (!!o.file === !!o.json) throw new Error("give the directory as --file <path> or --json '<json>' (the form a config file's directories[] entry has, without tokenHashes)");
  const text = o.file ? fs.readFileSync(o.file, "utf8") : o.json!;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${o.file ?? "--json"}: not valid JSON (${(err as Error).message})`);
  }
}

const path = (id: string, rest = "") => `/directories/${encodeURIComponent(id)}${rest}`;

export async function createCommand(t: AdminTarget, input: unknown, out: Out): Promise<void> {
  const r = expectOk<{ id: string; scimBaseUrl: string; token: { id: string; secret: string } }>(await adminCall(t, "POST", "/directories", input), "create");
  out(`directory ${r.id} created.\nGive the IdP these (the token is shown once; only its hash is kept):\n  SCIM base URL  ${r.scimBaseUrl}\n  Bearer token   ${r.token.secret}\n  (token id ${r.token.id}; revoke with \`scim-bridge directory token revoke ${r.id} ${r.token.id}\`)`);
}

export async function listCommand(t: AdminTarget, json: boolean, out: Out): Promise<void> {
  const dirs = expectOk<DirectoryStatus[]>(await adminCall(t, "GET", "/directories"), "list");
  if (json) { out(JSON.stringify(dirs, null, 2)); return; }
  if (!dirs.length) { out("no directories"); return; }
  for (const d of dirs) out(`${d.id.padEnd(24)} ${d.source === "config" ? "from config" : "runtime    "}  ${d.target.padEnd(9)}  ${d.health.padEnd(9)}  ${d.scimBaseUrl}`);
}

export async function showCommand(t: AdminTarget, id: string, out: Out): Promise<void> {
  const status = expectOk<DirectoryStatus>(await adminCall(t, "GET", path(id)), "show");
  const tokens = expectOk<unknown[]>(await adminCall(t, "GET", path(id, "/tokens")), "tokens");
  const oauth = expectOk<unknown>(await adminCall(t, "GET", path(id, "/oauth")), "oauth");
  out(JSON.stringify({ ...status, tokens, oauth }, null, 2));
}

export async function simpleCommand(t: AdminTarget, method: string, p: string, what: string, out: Out, body?: unknown): Promise<void> {
  out(JSON.stringify(expectOk<unknown>(await adminCall(t, method, p, body), what)));
}

const itemLine = (it: PlanItem) => `  ${it.kind.padEnd(11)} ${it.name ?? ""} (${it.id}${it.platformId ? `, platform ${it.platformId}` : ""})`;

/** A held deprovision run, as the admin API answers it. */
interface HeldDeprovision {
  status: "awaiting-confirmation" | "planning";
  resync: string;
  holdReason?: string;
  held?: number;
  deprovisions?: PlanItem[];
}

/** Waits for a worker to plan the deprovision run `resync` of `id`, then answers it as the admin API would. */
async function heldPlan(t: AdminTarget, id: string, resync: string, out: Out, pollMs: number): Promise<HeldDeprovision> {
  const started = Date.now();
  let hinted = false;
  for (;;) {
    const p = expectOk<ResyncProgress & { deprovisions?: PlanItem[] }>(await adminCall(t, "GET", path(id, "/resync")), "delete");
    if (p.id === resync && p.status === "awaiting-confirmation" && p.phase === "awaiting-confirmation") {
      return { status: "awaiting-confirmation", resync, holdReason: p.holdReason, held: p.held, deprovisions: p.deprovisions };
    }
    if (p.id === resync && p.status === "done") throw new Error(`the deprovision run of ${id} ended without holding: ${p.error ?? p.phase}`);
    if (!hinted && Date.now() - started > 5000) {
      hinted = true;
      out("waiting for a worker to list the platform side (is a worker running?)");
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Asks what happens to the platform side (leave, the default, or deprovision) unless `--platform` says,
 * then deletes. Without a terminal to ask on, `--platform` is required. `deprovision` prints what would be
 * deprovisioned and resolves 3 (nothing done until `--confirm`; `--cancel` drops it); otherwise 0.
 */
export async function deleteCommand(t: AdminTarget, id: string, o: { platform?: string; confirm?: boolean; cancel?: boolean; by?: string }, out: Out, pollMs = 250): Promise<number> {
  let platform = o.platform;
  if (!platform) {
    if (!process.stdin.isTTY) throw new Error("say what happens to the directory's users and groups on the platform: --platform leave (keep them as they are) or --platform deprovision");
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
    const answer = (await rl.question(`Delete directory ${id} and every key it has in Redis.\nIts users and groups on the platform: [L]eave them as they are (default), or [d]eprovision them? `)).trim().toLowerCase();
    rl.close();
    platform = answer.startsWith("d") ? "deprovision" : "leave";
  }
  if (platform !== "leave" && platform !== "deprovision") throw new Error("--platform must be leave or deprovision");
  if ((o.confirm || o.cancel) && platform !== "deprovision") throw new Error("--confirm and --cancel answer a delete with --platform deprovision");
  const by = o.by ? { by: o.by } : undefined;
  if (platform === "leave") {
    const r = expectOk<{ deletedKeys: number }>(await adminCall(t, "DELETE", path(id, "?platform=leave"), by), "delete");
    out(`directory ${id} deleted (${r.deletedKeys} keys purged; platform side: left as it was)`);
    return 0;
  }
  if (o.confirm || o.cancel) {
    const action = o.confirm ? "confirm" : "cancel";
    const r = expectOk<{ confirmed?: number; cancelled?: number }>(await adminCall(t, "DELETE", path(id, `?platform=deprovision&${action}=true`), by), `delete --${action}`);
    out(o.confirm
      ? `confirmed: ${r.confirmed} deprovision(s) of ${id} queued; the directory and every key it has are purged once they are done (progress: scim-bridge directory show ${id})`
      : `cancelled: ${r.cancelled} deprovision(s) of ${id} dropped, nothing deprovisioned; the directory stays disabled, with every key`);
    return 0;
  }
  let h = expectOk<HeldDeprovision>(await adminCall(t, "DELETE", path(id, "?platform=deprovision"), by), "delete");
  if (h.status === "planning") h = await heldPlan(t, id, h.resync, out, pollMs);
  out(`delete of ${id} AWAITS CONFIRMATION: ${h.holdReason ?? ""}`);
  out(`nothing has been deprovisioned yet; held for confirmation (${h.held ?? 0}):`);
  for (const it of h.deprovisions ?? []) out(itemLine(it));
  out(`deprovision them and delete: scim-bridge directory delete ${id} --platform deprovision --confirm [--by <name>]`);
  out(`keep everything (the directory stays disabled): scim-bridge directory delete ${id} --platform deprovision --cancel`);
  return 3;
}

/** Registers the `directory` command tree; `target(o)` turns the options into the admin API to call. */
export function directoryCommands(program: Command, remote: (c: Command) => Command, target: (o: Record<string, unknown>) => AdminTarget, out: Out): void {
  const dir = program.command("directory").description("directories at runtime, through a running bridge's admin API (--url)");
  const input = (c: Command) => c.option("--file <path>", "JSON file: the directory as a config file's directories[] entry holds it").option("--json <json>", "the same, inline");
  input(remote(dir.command("create").description("create a directory; prints its SCIM base URL and a token (once)")))
    .action((o) => createCommand(target(o), directoryInput(o), out));
  remote(dir.command("list").option("--json", "print JSON").description("every directory (from config or runtime) and its state"))
    .action((o) => listCommand(target(o), !!o.json, out));
  remote(dir.command("show").argument("<id>").description("one directory: status, tokens (never secrets), OAuth client"))
    .action((id: string, o) => showCommand(target(o), id, out));
  input(remote(dir.command("update").argument("<id>").description("change a runtime directory's settings (merged over the current ones)")))
    .action((id: string, o) => simpleCommand(target(o), "PATCH", path(id), "update", out, directoryInput(o)));
  remote(dir.command("disable").argument("<id>").description("SCIM answers 403 and sync pauses; nothing is lost"))
    .action((id: string, o) => simpleCommand(target(o), "POST", path(id, "/disable"), "disable", out));
  remote(dir.command("enable").argument("<id>").description("accept SCIM and sync again"))
    .action((id: string, o) => simpleCommand(target(o), "POST", path(id, "/enable"), "enable", out));
  remote(dir.command("delete").argument("<id>").option("--platform <leave|deprovision>", "what happens on the platform (asked when omitted)")
    .option("--confirm", "deprovision what a delete with --platform deprovision holds, then purge")
    .option("--cancel", "drop what it holds: nothing deprovisioned, the directory stays disabled")
    .option("--by <name>", "who answers, for the audit")
    .description("delete a disabled runtime directory and purge its keys; with --platform deprovision, first lists what it would deprovision (exit 3) and waits for --confirm"))
    .action(async (id: string, o) => { process.exitCode = await deleteCommand(target(o), id, o, out); });

  const token = dir.command("token").description("SCIM bearer tokens of a directory");
  remote(token.command("create").argument("<id>").option("--label <label>", "what the token is for").option("--expires-in-days <n>", "expiry")
    .description("a new token, printed once (rotation: create, switch the IdP, then revoke the old one)"))
    .action(async (id: string, o) => {
      const r = expectOk<{ id: string; token: string; expiresAt: string | null }>(await adminCall(target(o), "POST", path(id, "/tokens"),
        { label: o.label, ...(o.expiresInDays ? { expiresInDays: Number(o.expiresInDays) } : {}) }), "token create");
      out(`token ${r.id} for ${id} (shown once):\n  ${r.token}${r.expiresAt ? `\nexpires ${r.expiresAt}` : ""}`);
    });
  remote(token.command("list").argument("<id>").description("the directory's tokens: id, label, created, expires, last used"))
    .action((id: string, o) => simpleCommand(target(o), "GET", path(id, "/tokens"), "token list", out));
  remote(token.command("revoke").argument("<id>").argument("<tokenId>").description("revoke a token"))
    .action((id: string, tokenId: string, o) => simpleCommand(target(o), "DELETE", path(id, `/tokens/${encodeURIComponent(tokenId)}`), "token revoke", out));

  const oauth = dir.command("oauth").description("OAuth 2.0 client credentials of a directory");
  remote(oauth.command("show").argument("<id>").description("client id, token endpoint and secrets (never the secret)"))
    .action((id: string, o) => simpleCommand(target(o), "GET", path(id, "/oauth"), "oauth show", out));
  remote(oauth.command("secret").argument("<id>").option("--label <label>", "what the secret is for").option("--expires-in-days <n>", "expiry")
    .description("a new client secret, printed once (rotation: make one, switch the IdP, revoke the old one)"))
    .action(async (id: string, o) => {
      const r = expectOk<{ id: string; clientId: string; clientSecret: string; tokenEndpoint: string; scimBaseUrl: string }>(await adminCall(target(o), "POST", path(id, "/oauth/secrets"),
        { label: o.label, ...(o.expiresInDays ? { expiresInDays: Number(o.expiresInDays) } : {}) }), "oauth secret");
      out(`OAuth client credentials for ${id} (the secret is shown once):\n  Tenant URL         ${r.scimBaseUrl}\n  Token Endpoint     ${r.tokenEndpoint}\n  Client Identifier  ${r.clientId}\n  Client Secret      ${r.clientSecret}\n  (secret id ${r.id})`);
    });
  remote(oauth.command("revoke").argument("<id>").argument("<secretId>").description("revoke a client secret"))
    .action((id: string, secretId: string, o) => simpleCommand(target(o), "DELETE", path(id, `/oauth/secrets/${encodeURIComponent(secretId)}`), "oauth revoke", out));
}
