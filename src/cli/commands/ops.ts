/** The operator commands of the CLI: status, retry-failed, resync (with a progress bar). */
import type { Config } from "../../config/schema";
import { createOpsContext, type OpsContext } from "../../ops/ops-context";
import { directoryStatus } from "../../admin/directory-status";
import { createQueueConnection, waitReady } from "../../store";
import { retryFailed } from "../../sync/directory-control";
import { readResync, resyncPercent, type ResyncProgress } from "../../sync/resync";

/** Runs `fn` with an ops context, closing its connections afterwards. */
export async function withOps<T>(config: Config, fn: (c: OpsContext) => Promise<T>): Promise<T> {
  const redis = createQueueConnection(config.redis.url);
  redis.on("error", () => undefined);
  await waitReady(redis, 5000);
  const c = createOpsContext(config, redis);
  try {
    return await fn(c);
  } finally {
    await c.queues.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** An unknown directory: a usage error (exit 2). */
export class UnknownDirectoryError extends Error {
  constructor(dir: string, config: Config) {
    super(`unknown directory "${dir}" (configured: ${config.directories.map((d) => d.id).join(", ") || "none"})`);
    this.name = this.constructor.name;
  }
}

function requireDirectory(config: Config, dir: string): void {
  if (!config.directories.some((d) => d.id === dir)) throw new UnknownDirectoryError(dir, config);
}

/** `status`: one line per directory, or JSON. */
export async function statusCommand(config: Config, json: boolean, out: (s: string) => void): Promise<void> {
  await withOps(config, async (c) => {
    const all = await Promise.all(config.directories.map((d) => directoryStatus(c, d.id)));
    if (json) { out(JSON.stringify(all, null, 2)); return; }
    if (!all.length) { out("no directories configured"); return; }
    for (const d of all) {
      const ext = d.externalUsers ? ` external users ${d.externalUsers.used}/${d.externalUsers.limit}` : "";
      out(`${d.id.padEnd(16)} ${d.health.padEnd(8)} synced ${d.items.synced} pending ${d.items.pending} failed ${d.items.failed} deprovisioned ${d.items.deprovisioned} · queue ${d.queue.waiting}+${d.queue.active}+${d.queue.delayed} · last sync ${d.lastSyncAt ?? "never"}${ext}${d.paused ? ` · PAUSED: ${d.paused.reason}` : ""}`);
    }
  });
}

/** `retry-failed <dir>`. */
export async function retryFailedCommand(config: Config, dir: string, out: (s: string) => void): Promise<void> {
  requireDirectory(config, dir);
  await withOps(config, async (c) => {
    const n = await retryFailed(c.state, dir, (kind, id) => c.queues.enqueue(dir, kind, id));
    out(`${n} failed item(s) of ${dir} queued again`);
  });
}

function bar(p: ResyncProgress): string {
  const pct = resyncPercent(p);
  return `[${"#".repeat(Math.floor(pct / 5)).padEnd(20, ".")}] ${String(pct).padStart(3)}% ${p.done}/${p.total} ${p.phase ?? ""}`;
}

/** `resync <dir>`: queues a resync and follows it to its summary. */
export async function resyncCommand(config: Config, dir: string, out: (s: string) => void, tty = process.stdout.isTTY): Promise<ResyncProgress> {
  requireDirectory(config, dir);
  return withOps(config, async (c) => {
    const before = await readResync(c.redis, config.redis.keyPrefix, dir);
    if (before.status !== "running") await c.queues.enqueueResync(dir, "cli");
    out(before.status === "running" ? `a resync of ${dir} is already running; following it` : `resync of ${dir} queued`);
    const wanted = before.status === "running" ? before.id : undefined;
    const started = Date.now();
    let lastLine = "";
    let warned = false;
    for (;;) {
      const p = await readResync(c.redis, config.redis.keyPrefix, dir);
      const ours = p.id && (wanted ? p.id === wanted : p.id !== before.id);
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
      await new Promise((r) => setTimeout(r, 250));
    }
  });
}
