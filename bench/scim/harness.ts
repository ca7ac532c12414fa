/**
 * What every bench script shares: numeric knobs from the environment, deleting its Redis keys (data
 * under `<prefix>` and queues under `{<prefix>}`), and running `main` so that the keys are deleted and
 * the child servers stopped on success, on error and on Ctrl-C.
 */
import type { Redis } from "ioredis";
import type { ServerChild } from "./children";

/** A number from the environment variable `name`, or `dflt`. */
export function envNumber(name: string, dflt: number): number {
  return process.env[name] ? Number(process.env[name]) : dflt;
}

/** Deletes every key under `prefix`, `{prefix}` and the queue shards `{prefix:q<n>}` (SCAN, never KEYS); returns how many. */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  for (const pattern of [`${prefix}*`, `{${prefix}}*`, `{${prefix}:*`]) {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length) deleted += await redis.unlink(...keys);
    } while (cursor !== "0");
  }
  return deleted;
}

/**
 * Runs `main`, then `cleanup` once, also after an error (printing the children's last output) or a
 * signal. Ctrl-C reaches the process twice (from the terminal and relayed by tsx): later signals are
 * ignored while the first one cleans up, instead of killing the process before the keys are deleted.
 */
export function runBench(main: () => Promise<void>, cleanup: () => Promise<void>, children: ServerChild[]): void {
  let cleaning: Promise<void> | undefined;
  const cleanupOnce = () => {
    cleaning ??= cleanup().catch((err: Error) => console.error(`cleanup failed: ${err.message} — delete the bench keys by hand`));
    return cleaning;
  };
  let interrupted = false;
  const onSignal = (code: number) => () => {
    if (interrupted) return;
    interrupted = true;
    console.error("\ninterrupted: stopping the servers and deleting the bench keys…");
    void cleanupOnce().finally(() => process.exit(code));
  };
  process.on("SIGINT", onSignal(130));
  process.on("SIGTERM", onSignal(143));
  main()
    .then(() => cleanupOnce())
    .catch(async (err: Error) => {
      if (interrupted) return; // the signal handler cleans up and exits; what failed is the interruption
      console.error(`\nbench failed: ${err.stack ?? err.message}`);
      for (const c of children) if (c.output()) console.error(`--- last output of ${c.name}:\n${c.output()}`);
      await cleanupOnce();
      process.exitCode = 1;
    });
}
