/**
 * Real processes for the fault suite: the platform simulator (`src/simulator/main.ts`), the bridge's
 * `server` / `worker` roles (`src/main.ts`) and a private `redis-server`, each a child process the test
 * owns and may SIGKILL.
 *
 * TypeScript runs through tsx's loader in the same node process (`node --import tsx/dist/loader.mjs`),
 * which is what `node node_modules/tsx/dist/cli.mjs` starts as its own child: the pid we hold is the
 * process that serves, so a SIGKILL kills it and not only a wrapper (the wrapper would orphan it).
 *
 * Every process is registered in a `ProcessSet`; `killAll()` (the suite's afterAll) SIGKILLs what is still
 * running and removes the temp dirs, and a process-exit hook does the same if jest's worker dies first.
 * Every wait is bounded and, on timeout, throws with the last lines the process printed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { redisAnswers } from "../../src/cli/local-redis";
import type { FaultsInput } from "../../src/simulator/faults-schema";
import type { SimConfigInput } from "../../src/simulator/config";
import type { SimCounts } from "../../src/simulator/state";
import { freePort } from "./free-port";
import type { SimStateView } from "./sync-env";

export const ROOT = path.resolve(__dirname, "../..");
const TSX_LOADER = pathToFileURL(path.join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;
/** Lines of output kept per process (for waits and failure reports). */
const KEPT_LINES = 4000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const everyChild = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of everyChild) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** One child process: its output lines, bounded waits, kill by pid. */
export class Proc {
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly lines: string[] = [];
  private readonly listeners = new Set<(line: string) => void>();

  constructor(readonly name: string, readonly child: ChildProcess) {
    everyChild.add(child);
    this.exited = new Promise((resolve) => child.once("exit", (code, signal) => {
      everyChild.delete(child);
      resolve({ code, signal });
    }));
    const partial = { out: "", err: "" };
    const feed = (which: "out" | "err") => (chunk: Buffer) => {
      const text = partial[which] + chunk.toString("utf8");
      const parts = text.split("\n");
      partial[which] = parts.pop() ?? "";
      for (const line of parts) this.push(line);
    };
    child.stdout?.on("data", feed("out"));
    child.stderr?.on("data", feed("err"));
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEPT_LINES) this.lines.splice(0, this.lines.length - KEPT_LINES);
    for (const l of this.listeners) l(line);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last `n` lines printed (stdout and stderr). */
  tail(n = 40): string {
    return this.lines.slice(-n).join("\n");
  }

  /** Lines printed so far that match `re` (within the kept window). */
  grep(re: RegExp): string[] {
    return this.lines.filter((l) => re.test(l));
  }

  /** Resolves with the first line (already printed or to come) matching `re`; rejects on timeout or exit. */
  waitForLine(re: RegExp, timeoutMs: number): Promise<string> {
    const seen = this.lines.find((l) => re.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const done = (fn: () => void) => { clearTimeout(timer); this.listeners.delete(onLine); fn(); };
      const onLine = (line: string) => { if (re.test(line)) done(() => resolve(line)); };
      const timer = setTimeout(() => done(() => reject(new Error(`${this.name}: no line matching ${re} within ${timeoutMs} ms; last output:\n${this.tail()}`))), timeoutMs);
      this.listeners.add(onLine);
      void this.exited.then(({ code, signal }) => done(() => reject(new Error(`${this.name} exited (code ${code}, signal ${signal}) before printing ${re}; last output:\n${this.tail()}`))));
    });
  }

  /**
   * Sends `signal` to the pid and waits (bounded) for the exit; a process that outlives `timeoutMs` after
   * a gentler signal gets SIGKILL.
   */
  async kill(signal: NodeJS.Signals = "SIGKILL", timeoutMs = 10000): Promise<void> {
    if (!this.running) return;
    process.kill(this.pid, signal);
    let timer: NodeJS.Timeout | undefined;
    const gone = await Promise.race([this.exited.then(() => true), new Promise<boolean>((r) => { timer = setTimeout(() => r(false), timeoutMs); })]);
    clearTimeout(timer);
    if (gone) return;
    if (signal !== "SIGKILL") return this.kill("SIGKILL", 5000);
    throw new Error(`${this.name} (pid ${this.pid}) did not exit after SIGKILL`);
  }
}

/** The processes and temp dirs of one suite; `killAll()` in afterAll. */
export class ProcessSet {
  private readonly procs: Proc[] = [];
  private readonly dirs: string[] = [];

  /** A fresh temp dir, removed by `killAll()`. */
  tempDir(prefix: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `scim-bridge-${prefix}-`));
    this.dirs.push(dir);
    return dir;
  }

  /** Spawns `command args`, output piped (never inherited, so a chatty child cannot block on a full pipe). */
  spawn(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    const proc = new Proc(name, child);
    this.procs.push(proc);
    return proc;
  }

  /** Runs a TypeScript entry point of this repository under tsx, in one process. */
  spawnTs(name: string, script: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
    return this.spawn(name, process.execPath, ["--import", TSX_LOADER, script, ...args], env);
  }

  /** The last lines of every process, for a failure message. */
  report(lines = 30): string {
    return this.procs.map((p) => `--- ${p.name} (pid ${p.pid}, ${p.running ? "running" : "exited"}) ---\n${p.tail(lines)}`).join("\n");
  }

  /** SIGKILLs everything still running (waiting for each exit) and removes the temp dirs. */
  async killAll(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.kill("SIGKILL").catch(() => undefined)));
    for (const d of this.dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  }
}

/** The simulator as a child process. */
export interface SimProcess {
  proc: Proc;
  /** http://127.0.0.1:<port> */
  url: string;
  /** The platform {base_url}: `<url>/api`. */
  baseUrl: string;
  /** GET /_sim/state. */
  state(): Promise<SimStateView & { counters: { faults: Record<"rateLimited" | "errors" | "dropped" | "outage", number> } }>;
  /** GET /_sim/counts: SCIM users, groups and member entries (cheap to poll, unlike the state). */
  counts(): Promise<SimCounts>;
  /** PUT /_sim/faults (replaces every fault setting; `{}` clears them). */
  setFaults(faults: FaultsInput): Promise<void>;
}

/** Starts `src/simulator/main.ts` with `config` (written to a temp SIM_CONFIG file) on a port of its own. */
export async function startSimProcess(set: ProcessSet, config: SimConfigInput, timeoutMs = 20000): Promise<SimProcess> {
  const file = path.join(set.tempDir("sim"), "simulator.json");
  fs.writeFileSync(file, JSON.stringify(config));
  // SIM_PORT=0: the kernel picks the port and the simulator prints it (no window for another process to take it)
  const proc = set.spawnTs("simulator", "src/simulator/main.ts", [], { SIM_PORT: "0", SIM_HOST: "127.0.0.1", SIM_CONFIG: file });
  const line = await proc.waitForLine(/platform simulator listening; base_url /, timeoutMs);
  const baseUrl = /base_url (\S+)/.exec(line)![1];
  const url = baseUrl.replace(/\/api$/, "");
  const admin = config.admin ?? {};
  const headers = { [admin.header ?? "x-sim-token"]: admin.token ?? "sim-admin-token" };
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`, { headers });
    if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    proc, url, baseUrl,
    state: () => get<Awaited<ReturnType<SimProcess["state"]>>>("/_sim/state"),
    counts: () => get<SimCounts>("/_sim/counts"),
    setFaults: async (faults) => {
      const res = await fetch(`${url}/_sim/faults`, { method: "PUT", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(faults) });
      if (!res.ok) throw new Error(`PUT /_sim/faults: ${res.status} ${await res.text()}`);
    },
  };
}

/** A bridge process (`server`, `worker` or `all` role). */
export interface BridgeProcess {
  proc: Proc;
  /** Base URL of the server role (undefined for a worker without endpoints). */
  url?: string;
}

let bridgeCount = 0;

/**
 * Starts `src/main.ts <role>` with `config` as SCIM_BRIDGE_CONFIG_JSON (the loader's inline layer over
 * config/default.json), resolving once it logs "scim-bridge started". `env` carries the platform key.
 */
export async function startBridgeProcess(
  set: ProcessSet, role: "server" | "worker" | "all", config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, timeoutMs = 30000,
): Promise<BridgeProcess> {
  const proc = set.spawnTs(`bridge-${role}-${++bridgeCount}`, "src/main.ts", [role], {
    SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config), SCIM_BRIDGE_CONFIG: "", NODE_ENV: "test",
    PORT: "", HOST: "", REDIS_URL: "", REDIS_KEY_PREFIX: "", LOG_LEVEL: "", ...env,
  });
  const line = await proc.waitForLine(/"msg":"scim-bridge started"/, timeoutMs);
  const url = (JSON.parse(line) as { url?: string }).url;
  return { proc, url };
}

/** A private redis-server with AOF (`appendfsync always`), on a port and in a dir of its own. */
export class RedisServerProcess {
  proc?: Proc;
  private constructor(private readonly set: ProcessSet, readonly port: number, readonly dir: string, private readonly extra: string[]) {}

  /** Starts one on a free port; `restart()` reuses the port and the data dir. `extra`: more redis-server options (they win). */
  static async start(set: ProcessSet, extra: string[] = []): Promise<RedisServerProcess> {
    const r = new RedisServerProcess(set, await freePort(), set.tempDir("redis"), extra);
    await r.launch();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private async launch(timeoutMs = 15000): Promise<void> {
    this.proc = this.set.spawn(`redis-server:${this.port}`, process.env.REDIS_SERVER_BIN || "redis-server", [
      "--port", String(this.port), "--bind", "127.0.0.1", "--dir", this.dir,
      "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--maxmemory-policy", "noeviction", ...this.extra,
    ]);
    // PING answers +PONG only once the AOF is loaded (-LOADING before)
    await untilRedisAnswers(this.proc, this.port, "redis-server", timeoutMs);
  }

  /** Kills it by pid (SIGKILL by default: no SHUTDOWN, no final save). */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    await this.proc?.kill(signal);
  }

  /** Starts it again on the same port and data dir (it reloads the AOF). */
  async restart(): Promise<void> {
    if (this.proc?.running) throw new Error("redis-server is still running");
    await this.launch();
  }
}

/** Polls a private redis-server's port until PING answers; fails at once if the process exits, or after `timeoutMs`. */
export async function untilRedisAnswers(proc: Proc, port: number, name: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await redisAnswers("127.0.0.1", port, 200))) {
    if (!proc.running) throw new Error(`${name} exited at start:\n${proc.tail()}`);
    if (Date.now() > end) throw new Error(`${name} did not answer within ${timeoutMs} ms:\n${proc.tail()}`);
    await sleep(50);
  }
}
