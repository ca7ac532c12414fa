/**
 * The servers under test run as child processes of the bench, so each one's RSS and CPU time can be read
 * from /proc on its own. Children get an IPC channel and a preload (exit-with-parent) so they exit if
 * the bench dies without stopping them.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** A running server child. */
export interface ServerChild {
  name: string;
  proc: ChildProcess;
  pid: number;
  origin: string;
  /** Last lines the child wrote on stderr/stdout (for error reports). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The node flags the product runs with (docker/entrypoint.sh and `npm start`): the bench starts the
 * bridge's roles with them, so the RSS and CPU it reports are those of the image.
 */
export const IMAGE_NODE_ARGS = ["--max-semi-space-size=8", "--heap-growing-percent=50"];

/** The `worker` role's flags in the image: a larger young generation (fewer scavenges at platform speed). */
export const IMAGE_WORKER_NODE_ARGS = ["--max-semi-space-size=16", "--heap-growing-percent=50"];

let clockTicks = 100;
try {
  clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
} catch { /* 100 on Linux */ }

/** A TCP port nobody listens on right now: the tests' helper (drawn below the kernel's ephemeral range). */
export { freePort } from "../../test/helpers/free-port";

/** VmRSS of a process, in MiB. */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU time (user + system) a process has used so far, in ms. */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields[0] is field 3 (state)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks; // utime (14), stime (15)
}

/** Read and write system calls (read/readv/recv…, write/writev/send…) the process has made so far (/proc/<pid>/io). */
export function ioCalls(pid: number): { reads: number; writes: number } {
  const io = fs.readFileSync(`/proc/${pid}/io`, "utf8");
  const num = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, "m").exec(io)?.[1] ?? 0);
  return { reads: num("syscr"), writes: num("syscw") };
}

/** CPU time (ms) the whole machine has spent busy so far, all CPUs together (/proc/stat). */
export function machineBusyMs(): number {
  const [, ...f] = fs.readFileSync("/proc/stat", "utf8").split("\n", 1)[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = f; // idle and iowait left out
  return ((user + nice + system + irq + softirq + (steal || 0)) * 1000) / clockTicks;
}

/**
 * Starts `node [args]` with `env`, waits until `GET readyPath` on 127.0.0.1:`port` answers (any status; with
 * `requireOk`, a 2xx: /readyz of a worker that is still starting answers 503).
 */
export async function startChild(name: string, args: string[], env: NodeJS.ProcessEnv, port: number, readyPath: string, preload: string, requireOk = false): Promise<ServerChild> {
  const proc = spawn(process.execPath, ["-r", preload, ...args], { env, stdio: ["ignore", "pipe", "pipe", "ipc"] });
  let tail = "";
  const keep = (chunk: Buffer) => { tail = (tail + chunk.toString()).slice(-4000); };
  proc.stdout!.on("data", keep);
  proc.stderr!.on("data", keep);
  if (process.env.BENCH_CHILD_LOG_DIR) {
    const out = fs.createWriteStream(path.join(process.env.BENCH_CHILD_LOG_DIR, `${name}.log`), { flags: "a" });
    proc.stdout!.pipe(out);
    proc.stderr!.pipe(out);
  }
  let exited: string | undefined;
  proc.once("exit", (code, signal) => { exited = `exited with ${signal ?? code}`; });
  const origin = `http://127.0.0.1:${port}`;
  const child: ServerChild = {
    name, proc, pid: proc.pid!, origin,
    output: () => tail.trim(),
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const gone = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) throw new Error(`${name} ${exited} before it answered:\n${child.output()}`);
    try {
      const res = await fetch(origin + readyPath);
      await res.arrayBuffer();
      if (!requireOk || res.ok) return child;
      throw new Error(`${readyPath} answered ${res.status}`);
    } catch {
      if (Date.now() > deadline) { await child.stop(); throw new Error(`${name} did not answer on ${origin} within 20 s:\n${child.output()}`); }
      await sleep(100);
    }
  }
}
