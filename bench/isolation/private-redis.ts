/**
 * A redis-server of the bench's own on a free port (no persistence), so its slow log can be set to
 * 10 ms and read per scenario without touching the shared Redis: the longest call, and how many took
 * 10 ms or more, is what one tenant's work cost every other tenant on that Redis.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { defineStoreCommands } from "../../src/store/scripts";
import { freePort } from "../scim/children";

/** sha1 → name of the store's scripts, so the slow log names the script an EVALSHA ran. */
function scriptNames(): Map<string, string> {
  const r = new Redis({ lazyConnect: true });
  defineStoreCommands(r as never);
  const set = (r as unknown as { scriptsSet: Record<string, { sha: string }> }).scriptsSet;
  r.disconnect();
  return new Map(Object.entries(set).map(([name, s]) => [s.sha, name]));
}

/** Calls slower than this go into the slow log (µs). */
export const SLOW_US = 10_000;

export interface PrivateRedis {
  url: string;
  redis: Redis;
  /** Empties the slow log. */
  resetSlowLog(): Promise<void>;
  /** Calls of ≥ 10 ms since the last reset: how many, and the longest (µs, command or script and first key, `keyPrefix` cut). */
  slowCalls(keyPrefix: string): Promise<{ count: number; longestUs: number; longest: string }>;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const proc: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
    "--slowlog-log-slower-than", String(SLOW_US), "--slowlog-max-len", "4096"], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true, retryStrategy: () => null });
  redis.on("error", () => undefined);
  for (let i = 0; ; i++) {
    try { await redis.connect(); await redis.ping(); break; } catch (err) {
      if (i > 50 || proc.exitCode !== null) { proc.kill("SIGKILL"); throw new Error(`redis-server on ${port} did not start: ${(err as Error).message}`); }
      await sleep(100);
    }
  }
  const names = scriptNames();
  return {
    url, redis,
    resetSlowLog: async () => { await redis.slowlog("RESET"); },
    slowCalls: async (keyPrefix) => {
      const entries = (await redis.slowlog("GET", 4096)) as Array<[number, number, number, string[]]>;
      let longestUs = 0;
      let longest = "";
      for (const [, , us, args] of entries) {
        if (us > longestUs) {
          longestUs = us;
          const [cmd, a1, , a3] = args.map(String);
          // EVAL (the first call of a script, before Redis has it) carries the text: named by its sha1 too
          const sha = cmd.toLowerCase() === "eval" ? createHash("sha1").update(a1).digest("hex") : a1;
          // (the slow log cuts long arguments: a cut text is shown by its first words)
          const script = names.get(sha) ?? (cmd.toLowerCase() === "eval" ? `EVAL "${a1.replace(/\s+/g, " ").slice(0, 40)}…"` : sha.slice(0, 8));
          longest = /^eval(sha)?$/i.test(cmd) ? `${script} ${(a3 ?? "").replace(keyPrefix, "")}` : args.slice(0, 2).map((a) => String(a).replace(keyPrefix, "")).join(" ");
        }
      }
      return { count: entries.length, longestUs, longest };
    },
    stop: async () => {
      redis.disconnect();
      if (proc.exitCode !== null) return;
      const gone = new Promise<void>((r) => proc.once("exit", () => r()));
      proc.kill("SIGTERM");
      await gone;
    },
  };
}
