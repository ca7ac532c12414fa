/**
 * The operator commands of the CLI: status, retry-failed, resync (with a progress bar). They run on an
 * `OpsBackend`: Redis with the local configuration, or a running bridge's admin API.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { resyncPercent, type ResyncProgress } from "../../sync/resync";
import type { OpsBackend } from "../backends/ops-backend";

/** `status`: one line per directory, or JSON. */
export async function statusCommand(b: OpsBackend, json: boolean, out: (s: string) => void): Promise<void> {
  const all = await b.statuses();
  if (json) { out(JSON.stringify(all, null, 2)); return; }
  if (!all.length) { out("no directories configured"); return; }
  for (const d of all) {
    const ext = d.externalUsers ? ` external users ${d.externalUsers.used}/${d.externalUsers.limit}` : "";
    out(`${d.id.padEnd(16)} ${d.health.padEnd(8)} synced ${d.items.synced} pending ${d.items.pending} failed ${d.items.failed} deprovisioned ${d.items.deprovisioned} · queue ${d.queue.waiting}+${d.queue.active}+${d.queue.delayed} · last sync ${d.lastSyncAt ?? "never"}${ext}${d.paused ? ` · PAUSED: ${d.paused.reason}` : ""}`);
  }
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
