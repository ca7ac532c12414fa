/**
 * The operator commands of the CLI: status, retry-failed, resync (with a progress bar). They run on an
 * `OpsBackend`: Redis with the local configuration, or a running bridge's admin API.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { resyncPercent, type PlanReport, type ResyncProgress } from "../../sync/resync/resync";
import type { PlanItem } from "../../sync/resync/plan";
import type { OpsBackend } from "../backends/ops-backend";

/** `status`: one line per directory, or JSON. */
export async function statusCommand(b: OpsBackend, json: boolean, out: (s: string) => void): Promise<void> {
  const all = await b.statuses();
  if (json) { out(JSON.stringify(all, null, 2)); return; }
  if (!all.length) { out("no directories configured"); return; }
  for (const d of all) {
    const ext = d.externalUsers ? ` external users ${d.externalUsers.used}/${d.externalUsers.limit}` : "";
    // what waits, and for how long: a paused or cut-off directory's backlog is what its users wait for
    const waits = d.lag.waiting ? `waiting ${d.lag.waiting} (backlog ${d.queue.waiting}, outbox ${d.queue.outbox}, running ${d.queue.active}), oldest ${age(d.lag.ageMs)}` : "nothing waiting";
    const down = d.platform.unreachableSince ? ` · PLATFORM UNREACHABLE since ${d.platform.unreachableSince}` : "";
    out(`${d.id.padEnd(16)} ${d.health.padEnd(8)} synced ${d.items.synced} pending ${d.items.pending} failed ${d.items.failed} deprovisioned ${d.items.deprovisioned} · ${waits} · last sync ${d.lastSyncAt ?? "never"}${ext}${down}${d.paused ? ` · PAUSED: ${d.paused.reason}` : ""}`);
  }
}

/** A duration as a person reads it: 850 ms, 42 s, 7 min, 3.5 h. */
function age(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** `retry-failed <dir>`. */
export async function retryFailedCommand(b: OpsBackend, dir: string, out: (s: string) => void): Promise<void> {
  await b.requireDirectory(dir);
  const n = await b.retryFailed(dir);
  out(`${n} failed item(s) of ${dir} queued again`);
}

function bar(p: ResyncProgress): string {
  const pct = resyncPercent(p);
  return `[${"#".repeat(Math.floor(pct / 5)).padEnd(20, ".")}] ${String(pct).padStart(3)}% ${p.done}/${p.total} ${p.phase ?? ""}`;
}

/** How `resyncCommand` shows progress and how often it polls. */
export interface ResyncDisplay {
  tty?: boolean;
  pollMs?: number;
}

/** `resync <dir>`: starts a resync (or finds the running one) and follows it to its summary. */
export async function resyncCommand(b: OpsBackend, dir: string, out: (s: string) => void, o: ResyncDisplay = {}): Promise<ResyncProgress> {
  const tty = o.tty ?? process.stdout.isTTY;
  await b.requireDirectory(dir);
  const before = await b.readResync(dir);
  if (before.status === "awaiting-confirmation") { awaiting(before, dir, out); return before; }
  const running = before.status === "running" ? before : (await b.requestResync(dir)).running;
  out(running ? `a resync of ${dir} is already running; following it` : `resync of ${dir} queued`);
  const started = Date.now();
  let lastLine = "";
  let warned = false;
  for (;;) {
    const p = await b.readResync(dir);
    const ours = p.id && (running ? p.id === running.id : p.id !== before.id);
    if (ours) {
      const line = bar(p);
      if (line !== lastLine) { if (tty) process.stdout.write(`\r${line}   `); else out(line); lastLine = line; }
      if (p.status === "awaiting-confirmation" && p.phase === "awaiting-confirmation") {
        if (tty) process.stdout.write("\n");
        awaiting(p, dir, out);
        return p;
      }
      if (p.status === "done") {
        if (tty) process.stdout.write("\n");
        const failed = p.phase === "failed";
        out(`${failed ? "resync failed" : "resync done"} in ${((Date.now() - started) / 1000).toFixed(1)} s: created ${p.created}, updated ${p.updated}, deactivated ${p.deactivated}, deleted ${p.deleted}, unchanged ${p.unchanged}, failed ${p.failed}${failed && p.error ? ` (${p.error})` : ""}`);
        return p;
      }
    } else if (!warned && Date.now() - started > 10000) {
      warned = true;
      out("waiting for a worker to pick the resync up (is a worker running: `scim-bridge worker`, `npm start` or `npm run demo`?)");
    }
    await sleep(o.pollMs ?? 250);
  }
}

const itemLine = (it: PlanItem) => `  ${it.kind.padEnd(11)} ${it.name ?? ""} (${it.id}${it.platformId ? `, platform ${it.platformId}` : ""})`;

/** Prints a resync that holds its deprovisions: why, what, and how to answer. */
function awaiting(p: ResyncProgress & { deprovisions?: PlanItem[] }, dir: string, out: (s: string) => void): void {
  out(`resync of ${dir} AWAITS CONFIRMATION: ${p.holdReason ?? ""}`);
  out(`created ${p.created}, updated ${p.updated}, unchanged ${p.unchanged}, failed ${p.failed}; held for confirmation (${p.held}):`);
  for (const it of p.deprovisions ?? []) out(itemLine(it));
  out(`deprovision them: scim-bridge resync ${dir} --confirm [--by <name>]; drop them: scim-bridge resync ${dir} --cancel`);
}

/** `resync <dir> --dry-run`: asks for the plan, waits for it and prints it. */
export async function dryRunCommand(b: OpsBackend, dir: string, by: string, out: (s: string) => void, pollMs = 250): Promise<PlanReport> {
  await b.requireDirectory(dir);
  const id = await b.requestDryRun(dir, by);
  out(`dry run of ${dir} queued (writes nothing)`);
  for (;;) {
    const plan = await b.readPlan(dir);
    if (plan?.id === id) {
      const n = plan.counts;
      out(`plan of ${dir}: create ${n.create}, update ${n.update}, unchanged ${n.unchanged}, deprovision ${n.deprovision} (of ${n.managed} managed; ${n.storeUsers} users in the store)`);
      if (plan.wouldHold) out(`a resync would hold its deprovisions for confirmation: ${plan.wouldHold}`);
      for (const [label, items] of [["create", plan.create], ["update", plan.update], ["deprovision", plan.deprovision]] as const) {
        if (!items.length) continue;
        out(`${label}:`);
        for (const it of items) out(itemLine(it));
      }
      if (plan.truncated) out("(lists cut at 10,000 entries each; the counts are whole)");
      return plan;
    }
    await sleep(pollMs);
  }
}

/** `resync <dir> --confirm | --cancel`. Resolves false when nothing awaited an answer. */
export async function answerCommand(b: OpsBackend, dir: string, action: "confirm" | "cancel", by: string, out: (s: string) => void): Promise<boolean> {
  await b.requireDirectory(dir);
  const a = await b.answerResync(dir, action, by);
  if (!a.answered) { out(a.reason); return false; }
  out(action === "confirm" ? `confirmed: ${a.count} deprovision(s) of resync ${a.resync} queued${a.dropped ? `; ${a.dropped} dropped (the IdP pushed them again since the hold)` : ""}` : `cancelled: ${a.count} deprovision(s) of resync ${a.resync} dropped, nothing deprovisioned`);
  return true;
}
