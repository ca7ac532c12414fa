/**
 * `npm run resync -- <directory>`: starts a full resync of a directory through its queue (workers must be
 * running: `npm start`, or `npm run demo`) and follows its progress until the final summary.
 */
import { loadConfig, ConfigError } from "../config/load";
import { createQueueConnection, waitReady } from "../store";
import { SyncQueues } from "../sync/queues";
import { readResync, type ResyncProgress } from "../sync/resync";

function line(p: ResyncProgress): string {
  // a finished resync with nothing to do (total 0) is complete, not at 0%
  const finished = p.status === "done" && p.phase === "done";
  const pct = p.total ? Math.floor((p.done / p.total) * 100) : finished ? 100 : 0;
  const bar = "#".repeat(Math.floor(pct / 5)).padEnd(20, ".");
  return `[${bar}] ${String(pct).padStart(3)}% ${p.done}/${p.total} ${p.phase ?? ""}`;
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  const config = loadConfig();
  if (!dir || !config.directories.some((d) => d.id === dir)) {
    console.error(`usage: npm run resync -- <directory>   (configured: ${config.directories.map((d) => d.id).join(", ") || "none"})`);
    process.exit(2);
  }
  const redis = createQueueConnection(config.redis.url);
  await waitReady(redis);
  const queues = new SyncQueues(redis, config);
  const before = await readResync(redis, config.redis.keyPrefix, dir);
  if (before.status !== "running") await queues.enqueueResync(dir, "cli");
  console.log(before.status === "running" ? `a resync of ${dir} is already running; following it` : `resync of ${dir} queued`);
  let seen = before.status === "running" ? before.id : undefined;
  const started = Date.now();
  for (;;) {
    const p = await readResync(redis, config.redis.keyPrefix, dir);
    if (p.id && p.id !== before.id) seen = p.id;
    if (seen && p.id === seen) {
      process.stdout.write(`\r${line(p)}   `);
      if (p.status === "done") {
        const failed = p.phase === "failed";
        console.log(`\n${failed ? "resync failed" : "resync done"} in ${((Date.now() - started) / 1000).toFixed(1)} s: created ${p.created}, updated ${p.updated}, deactivated ${p.deactivated}, deleted ${p.deleted}, unchanged ${p.unchanged}, failed ${p.failed}${failed && p.error ? ` (${p.error})` : ""}`);
        // a resync that could not list the platform side is a failure of the command, for scripts and cron
        if (failed) process.exitCode = 1;
        break;
      }
    } else if (Date.now() - started > 10000 && !seen) {
      process.stdout.write("\rwaiting for a worker to pick the resync up (is `npm start` or `npm run demo` running?)");
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await queues.close();
  await redis.quit();
}

main().catch((err: Error) => {
  console.error(err instanceof ConfigError ? err.message : `resync failed: ${err.message}`);
  process.exit(1);
});
