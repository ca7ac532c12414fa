import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { runCompiledCli } from "../helpers/compiled-build";

const ROOT = path.resolve(__dirname, "../..");
let e: SyncEnv;
beforeAll(async () => { e = await startSyncEnv(); });
afterAll(async () => e.close());

/** Runs the compiled `scim-bridge <args>` with the test environment's configuration; stdout and stderr together. */
async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string }> {
  const r = await runCompiledCli(args, { SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(e.config), ...env });
  return { code: r.code, out: r.stdout + r.stderr };
}

describe("scim-bridge CLI", () => {
  it("token new: should print a fresh token once and the hash that matches it", async () => {
    const { code, out } = await cli(["token", "new", "wf"]);
    expect(code).toBe(0);
    const token = /^\s{2}(\S+)$/m.exec(out)![1];
    expect(out).toContain(`"sha256:${createHash("sha256").update(token).digest("hex")}"`);
  });

  it("config check: should accept the configuration, and refuse a bad one naming the key", async () => {
    const ok = await cli(["config", "check"], { TEST_PLATFORM_KEY: "set" });
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.out).toContain("configuration OK: 2 directories (wf:workforce, em:embed)");
    const bad = await cli(["config", "check"], { SCIM_BRIDGE_CONFIG_JSON: JSON.stringify({ directories: [{ id: "X_Y", target: "nope" }] }) });
    expect(bad.code).toBe(2);
    expect(bad.out).toContain("directories.0.id");
    expect(bad.out).toContain("directories.0.target");
  });

  it("status and retry-failed: should report every directory and re-queue failed items", async () => {
    const u = await e.scim("wf").post("/Users", userBody("cli.user@example.com"));
    await waitFor(async () => (await e.state.get("wf", "user", u.body.id)).status === "synced");
    const status = await cli(["status"]);
    expect(status.code).toBe(0);
    expect(status.out).toMatch(/^wf\s+in sync\s+synced 1 pending 0 failed 0/m);
    expect(status.out).toMatch(/^em\s+/m);
    const json = await cli(["status", "--json"]);
    expect(JSON.parse(json.out)[0]).toMatchObject({ id: "wf", items: { synced: 1 } });
    const retry = await cli(["retry-failed", "wf"]);
    expect(retry).toMatchObject({ code: 0 });
    expect(retry.out).toContain("0 failed item(s) of wf queued again");
    expect((await cli(["retry-failed", "nope"])).code).toBe(2);
  }, 90000); // each spawns the compiled CLI several times: seconds apiece on a loaded machine

  it("resync: should follow a resync to 100% and print the summary", async () => {
    const { code, out } = await cli(["resync", "wf"]);
    expect(code).toBe(0);
    expect(out).toContain("100%");
    expect(out).toMatch(/resync done in [\d.]+ s: created 0, updated 0, deactivated 0, deleted 0, unchanged 1, failed 0/);
  }, 90000); // each spawns the compiled CLI several times: seconds apiece on a loaded machine

  it("npm run resync -- <directory>: should do the same", async () => {
    const { code, out } = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "src/cli/resync.ts", "wf"], {
        cwd: ROOT, env: { ...process.env, SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(e.config) },
      });
      let o = "";
      child.stdout.on("data", (d) => { o += d; });
      child.stderr.on("data", (d) => { o += d; });
      child.on("exit", (c) => resolve({ code: c, out: o }));
    });
    expect(code).toBe(0);
    expect(out).toContain("resync done");
  }, 90000); // each spawns the compiled CLI several times: seconds apiece on a loaded machine

  it("keep-name: should give a same-name group's platform name to the chosen group, and refuse an unknown group", async () => {
    const group = async (members: string[]) => (await e.scim("wf").post("/Groups", { displayName: "CLI Twice", members: members.map((value) => ({ value })) })).body.id as string;
    const first = await group([]);
    await waitFor(async () => (await e.state.get("wf", "group", first)).status === "synced");
    const second = await group([]);
    await waitFor(async () => (await e.state.get("wf", "group", second)).status === "failed");
    const kept = await cli(["keep-name", "wf", second, "--by", "tester"]);
    expect(kept).toMatchObject({ code: 0 });
    expect(kept.out).toContain(`group ${second} of wf keeps the platform name "CLI Twice"; group ${first} no longer has it`);
    await waitFor(async () => (await e.state.get("wf", "group", second)).status === "synced");
    expect((await cli(["keep-name", "wf", "no-such-group"])).code).toBe(1);
    expect((await cli(["keep-name", "nope", second])).code).toBe(2);
    for (const id of [first, second]) await e.scim("wf").delete(`/Groups/${id}`);
  }, 90000); // each spawns the compiled CLI several times: seconds apiece on a loaded machine
});
