/**
 * The bound on a graceful stop (`shutdown.timeoutMs`, src/roles/run-roles.ts `stopRoles`): a worker whose
 * close does not finish (Redis lost during the stop) ends the stop at the bound with code 1; one that
 * finishes ends it with code 0; one whose Redis is down at the signal is not waited for at all.
 */
import { createLogger } from "../../src/observability/logger";
import { stopRoles } from "../../src/roles/run-roles";
import type { SyncRuntime } from "../../src/roles/worker";

const logger = createLogger("silent");
const runtime = (close: () => Promise<void>, redisReady = true) => ({ close, redisReady: () => redisReady }) as unknown as SyncRuntime;

describe("stopRoles", () => {
  it("should end a stop that does not finish at shutdown.timeoutMs, with code 1", async () => {
    const t0 = Date.now();
    const code = await stopRoles({ runtime: runtime(() => new Promise<void>(() => undefined)), logger, signal: "SIGTERM", timeoutMs: 300 });
    expect(code).toBe(1);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it("should close the server, then the runtime, and end with code 0", async () => {
    const order: string[] = [];
    const server = { close: async () => { order.push("server"); } };
    const code = await stopRoles({ server, runtime: runtime(async () => { order.push("runtime"); }), logger, signal: "SIGTERM", timeoutMs: 60000 });
    expect(code).toBe(0);
    expect(order).toEqual(["server", "runtime"]);
  });

  it("should not wait for a runtime whose Redis is down: code 1 at once", async () => {
    let closed = false;
    const code = await stopRoles({ runtime: runtime(async () => { closed = true; }, false), logger, signal: "SIGTERM", timeoutMs: 60000 });
    expect(code).toBe(1);
    expect(closed).toBe(false);
  });
});
