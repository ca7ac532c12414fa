/**
 * Counts the Redis work of the bridge on the bench's private redis-server through MONITOR: commands sent by
 * clients (each a round trip, except that a MULTI … EXEC block counts once, as ioredis sends it in one write)
 * and commands run inside scripts (MONITOR shows them as `lua`, right after the EVALSHA that ran them).
 * Clients whose address is in `ignore` (the bench's own polling connections) are not counted.
 * A breakdown by command (scripts by name) says where the work goes.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";

export interface RedisWork {
  /** Client round trips (a MULTI … EXEC block once). */
  roundTrips: number;
  /** Commands run inside scripts. */
  scriptCommands: number;
  /** Milliseconds counted. */
  ms: number;
  /** Round trips by command (EVALSHA by script name). */
  byClientCommand: Map<string, number>;
  /** Commands inside scripts, by the script that ran them. */
  byScript: Map<string, number>;
}

/** sha1 → name of every script the bridge can run: the store's `.lua` files and BullMQ's. */
function scriptNames(root: string): Map<string, string> {
  const names = new Map<string, string>();
  const sha = (s: string) => createHash("sha1").update(s).digest("hex");
  const commands = path.join(root, "src/store/commands");
  const include = (lua: string) => lua.replace(/^-- @include (\w+)$/gm, (_, n: string) => fs.readFileSync(path.join(commands, "includes", `${n}.lua`), "utf8"));
  for (const f of fs.readdirSync(commands)) {
    const m = /^(\w+)-(\d+|n)\.lua$/.exec(f);
    if (m) names.set(sha(include(fs.readFileSync(path.join(commands, f), "utf8"))), m[1]);
  }
  const bull = path.join(root, "node_modules/bullmq/dist/cjs/scripts");
  for (const f of fs.readdirSync(bull)) {
    if (!f.endsWith(".js") || f === "index.js") continue;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(path.join(bull, f)) as Record<string, { name?: string; content?: string }>;
    for (const s of Object.values(mod)) if (s?.content && s.name) names.set(sha(s.content), `bullmq:${s.name}`);
  }
  return names;
}

export interface Monitor {
  /** Starts a count from zero. */
  reset(): void;
  /** What was counted since the last reset. */
  read(): RedisWork;
  stop(): Promise<void>;
}

export async function monitorRedis(url: string, root: string, ignore: () => Set<string>): Promise<Monitor> {
  const names = scriptNames(root);
  const conn = new Redis(url, { lazyConnect: true });
  const monitor = await conn.monitor();
  let work: RedisWork;
  let since = 0;
  const inMulti = new Set<string>();
  /** The script whose commands MONITOR shows next (its sha1), "" after a plain command. */
  let script = "";
  /** A script not among the files (one kept inline in TypeScript): named by the first command and key it runs. */
  const key = (k: string) => k.replace(/^[^:]*:\{[^}]*\}:/, "").replace(/^\{[^}]*\}:?/, "").replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\d+/g, "*");
  const learn = (sha: string, args: string[]) => { if (!names.has(sha)) names.set(sha, `inline(${String(args[0]).toLowerCase()} ${key(String(args[1] ?? ""))})`); };
  const named = (m: Map<string, number>) => {
    const out = new Map<string, number>();
    for (const [k, v] of m) {
      const n = /^[0-9a-f]{40}$/.test(k) ? names.get(k) ?? `script ${k.slice(0, 8)}` : k;
      out.set(n, (out.get(n) ?? 0) + v);
    }
    return out;
  };
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const reset = () => {
    work = { roundTrips: 0, scriptCommands: 0, ms: 0, byClientCommand: new Map(), byScript: new Map() };
    since = Date.now();
  };
  reset();
  monitor.on("monitor", (_time: string, args: string[], source: string) => {
    if (source === "lua") {
      work.scriptCommands++;
      learn(script, args);
      bump(work.byScript, script);
      return;
    }
    script = "";
    if (ignore().has(source)) return;
    const cmd = String(args[0]).toLowerCase();
    if (cmd === "multi") { inMulti.add(source); work.roundTrips++; bump(work.byClientCommand, "multi…exec"); return; }
    if (cmd === "exec" || cmd === "discard") { inMulti.delete(source); return; }
    if (inMulti.has(source)) return;
    work.roundTrips++;
    if (cmd === "evalsha" || cmd === "eval") {
      const sha = cmd === "eval" ? createHash("sha1").update(String(args[1])).digest("hex") : String(args[1]);
      script = sha;
      bump(work.byClientCommand, sha);
    } else {
      script = "";
      bump(work.byClientCommand, `${cmd} ${key(String(args[1] ?? ""))}`);
    }
  });
  return {
    reset,
    read: () => ({ ...work, ms: Date.now() - since, byClientCommand: named(work.byClientCommand), byScript: named(work.byScript) }),
    stop: async () => { monitor.disconnect(); conn.disconnect(); },
  };
}

/** `a − idle × (a.ms / idle.ms)` per entry, divided by `n`: work per item net of the traffic an idle bridge makes. */
export function perItem(a: RedisWork, idle: RedisWork, n: number): { roundTrips: number; scriptCommands: number; byClientCommand: Array<[string, number]>; byScript: Array<[string, number]> } {
  const scale = idle.ms ? a.ms / idle.ms : 0;
  const net = (m: Map<string, number>, im: Map<string, number>) =>
    [...m].map(([k, v]) => [k, (v - (im.get(k) ?? 0) * scale) / n] as [string, number]).filter(([, v]) => v >= 0.05).sort((x, y) => y[1] - x[1]);
  return {
    roundTrips: (a.roundTrips - idle.roundTrips * scale) / n,
    scriptCommands: (a.scriptCommands - idle.scriptCommands * scale) / n,
    byClientCommand: net(a.byClientCommand, idle.byClientCommand),
    byScript: net(a.byScript, idle.byScript),
  };
}
