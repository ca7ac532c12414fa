/**
 * `npm run resync -- <directory>` end to end: the CLI runs as a child process (compiled, as in the image;
 * the npm script runs the same file from source) with the test's configuration in SCIM_BRIDGE_CONFIG_JSON;
 * the workers run in this process. It queues the resync, follows it to 100% and prints the final summary.
 */
import { startSyncEnv, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { runCompiledCli, type CliRun } from "../helpers/compiled-build";

let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv();
  for (const n of ["cli.one@example.com", "cli.two@example.com"]) expect((await e.scim("wf").post("/Users", userBody(n))).status).toBe(201);
  await waitIdle(e, "wf");
});
afterAll(async () => e.close());

/** Runs `resync <dir>` (`dist/cli/resync.js`, which `npm run resync` runs from source); resolves with its exit code and output. */
function runCli(dir: string): Promise<CliRun> {
  return runCompiledCli([dir], { SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(e.config), LOG_LEVEL: "silent" }, "cli/resync.js");
}

describe("npm run resync -- <directory>", () => {
  it("should queue a resync, follow it to 100% and print the summary", async () => {
    const before = (await e.simState()).counters.total.writes;
    const r = await runCli("wf");
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("resync of wf queued");
    expect(r.stdout).toMatch(/\[#{20}\] 100% 2\/2 done/);
    expect(r.stdout).toMatch(/resync done in [\d.]+ s: created 0, updated 0, deactivated 0, deleted 0, unchanged 2, failed 0/);
    expect(r.code).toBe(0);
    expect((await e.simState()).counters.total.writes).toBe(before);
  });

  it("should show 100% for a directory with nothing to resync", async () => {
    const r = await runCli("em");
    expect(r.stdout).toMatch(/100% 0\/0 done/);
    expect(r.stdout).toMatch(/resync done .*unchanged 0, failed 0/);
    expect(r.code).toBe(0);
  });

  it("should exit non-zero when the resync fails", async () => {
    // every platform call answers 500, so listing the platform side fails
    e.sim.setFaults({ errors: { rate: 1, statuses: [500] } });
    try {
      const r = await runCli("wf");
      // the summary line carries why (the platform's answer)
      expect(r.stdout).toMatch(/resync failed in .*\(.*500.*\)/);
      expect(r.code).toBe(1);
    } finally {
      e.sim.setFaults({});
    }
  });

  it("should refuse an unknown directory with the list of configured ones", async () => {
    const r = await runCli("nope");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown directory "nope" (configured: wf, em)');
  });
});
