/**
 * Stopping while Redis is down. Before, every role hung on SIGTERM until it was killed: closing waited on
 * commands queued for a Redis that was not there (measured: still running 20 s after SIGTERM, each role).
 * A private redis-server is SIGKILLed under a `server`, a `worker` and an `all` process:
 * - each stops on SIGTERM: the server with code 0 (it had nothing to finish), the worker and `all` with
 *   code 1 (their active jobs, if any, were cut short and run again elsewhere);
 * - with Redis up, each stops with code 0 (the graceful path, unchanged).
 * The SHUTDOWN_TIMEOUT_MS bound is set far beyond the tests' timeout, so it cannot be what stops them.
 */
import { freePort } from "../helpers/free-port";
import { ProcessSet, RedisServerProcess, startBridgeProcess, type BridgeProcess } from "../helpers/processes";
import { waitFor } from "../helpers/sync-env";

const ROLES = ["server", "worker", "all"] as const;
/**
 * The processes' own bound on a stop (SHUTDOWN_TIMEOUT_MS), far beyond the tests' timeout: a process that
 * waits for Redis, as before, hangs its test, and one stopped by the bound would log it (checked below).
 */
const SHUTDOWN_TIMEOUT_MS = 600_000;

let set: ProcessSet;
let redis: RedisServerProcess;

beforeAll(async () => {
  set = new ProcessSet();
  redis = await RedisServerProcess.start(set);
}, 30000);
afterAll(async () => set?.killAll());

async function startRoles(): Promise<Record<(typeof ROLES)[number], BridgeProcess>> {
  const config = (workerPort: number) => ({
    server: { host: "127.0.0.1", port: 0 }, metrics: { workerPort }, redis: { url: redis.url, keyPrefix: "sd" },
    directories: [{ id: "wf", tokenHashes: ["a".repeat(64)], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } }],
  });
  const env = { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) };
  const out = {} as Record<(typeof ROLES)[number], BridgeProcess>;
  // the worker serves /readyz on a port of its own (metrics.workerPort); server and all on server.port
  for (const role of ROLES) out[role] = await startBridgeProcess(set, role, config(role === "worker" ? await freePort() : 0), env);
  return out;
}

/** Sends SIGTERM and resolves with the exit code once the process has exited. */
async function stop(p: BridgeProcess): Promise<number | null> {
  process.kill(p.proc.pid, "SIGTERM");
  return (await p.proc.exited).code;
}

async function ready(p: BridgeProcess): Promise<number> {
  return (await fetch(`${p.url}/readyz`).catch(() => undefined))?.status ?? 0;
}

describe("SIGTERM while Redis is down", () => {
  it("should stop every role at once: the server with code 0, a worker with code 1", async () => {
    const procs = await startRoles();
    for (const role of ROLES) await waitFor(async () => (await ready(procs[role])) === 200, 15000, `${role} ready`);
    await redis.kill("SIGKILL");
    // each has noticed (its readiness probe says Redis is unreachable)
    for (const role of ROLES) await waitFor(async () => (await ready(procs[role])) === 503, 15000, `${role} to notice the outage`);
    const codes = await Promise.all(ROLES.map((role) => stop(procs[role])));
    expect(Object.fromEntries(ROLES.map((role, i) => [role, codes[i]]))).toEqual({ server: 0, worker: 1, all: 1 });
    expect(procs.worker.proc.grep(/shutting down with Redis unreachable/)).toHaveLength(1);
    for (const role of ROLES) expect([role, procs[role].proc.grep(/did not finish within shutdown.timeoutMs/)]).toEqual([role, []]);
  }, 90000);

  it("should stop every role with code 0 while Redis is up", async () => {
    await redis.restart();
    const procs = await startRoles();
    for (const role of ROLES) await waitFor(async () => (await ready(procs[role])) === 200, 15000, `${role} ready`);
    const codes = await Promise.all(ROLES.map((role) => stop(procs[role])));
    expect(Object.fromEntries(ROLES.map((role, i) => [role, codes[i]]))).toEqual({ server: 0, worker: 0, all: 0 });
  }, 90000);
});
