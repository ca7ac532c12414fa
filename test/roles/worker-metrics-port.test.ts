/**
 * Two `worker` processes on one host with one metrics port (issue 14 §2): the second must not crash with
 * EADDRINUSE. The port comes from METRICS_PORT; the first worker gets it, the second listens on a port the
 * system picks and logs which (the choice documented in the README), and both serve /metrics and /healthz.
 */
import { freePort } from "../helpers/free-port";
import { ProcessSet, startBridgeProcess } from "../helpers/processes";
import { cleanPrefixAt, testPrefix, TEST_REDIS, TEST_REDIS_URL } from "../helpers/redis";

const set = new ProcessSet();
const prefix = testPrefix();
afterAll(async () => {
  await set.killAll();
  await cleanPrefixAt(TEST_REDIS_URL, prefix);
});

describe("two worker processes with one METRICS_PORT", () => {
  it("should start both: the first on the port, the second on another port it logs", async () => {
    const port = await freePort();
    // the test Redis, a cluster in the cluster project (where cleanPrefixAt cleans)
    const config = { server: { host: "127.0.0.1" }, redis: { ...TEST_REDIS, keyPrefix: prefix }, directories: [] };
    const first = await startBridgeProcess(set, "worker", config, { METRICS_PORT: String(port) });
    const second = await startBridgeProcess(set, "worker", config, { METRICS_PORT: String(port) });

    expect(first.url).toBe(`http://127.0.0.1:${port}`);
    expect(first.proc.grep(/is in use/)).toEqual([]);
    const warning = JSON.parse(await second.proc.waitForLine(/"msg":"metrics port \d+ is in use/, 0)) as { level: number; port: number; boundPort: number; msg: string };
    expect(warning).toMatchObject({ level: 40, port });
    expect(warning.boundPort).not.toBe(port);
    expect(warning.msg).toContain(`listen on port ${warning.boundPort} instead; set METRICS_PORT to choose`);
    expect(second.url).toBe(`http://127.0.0.1:${warning.boundPort}`);

    for (const w of [first, second]) {
      expect(w.proc.running).toBe(true);
      expect((await fetch(`${w.url}/healthz`)).status).toBe(200);
      const metrics = await fetch(`${w.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain("process_resident_memory_bytes");
    }
  }, 60000);
});
