/**
 * `scim-bridge config check [--online]` (issue 14 §1): beyond the schema, every environment variable the
 * directories name is set, every platform URL is https (plain http only on loopback or with
 * `allowPlainHttp`), and online each directory's key works and covers its deployment (against the
 * simulator over HTTP). The rules run in process (`configCheckCommand`); the last test runs the compiled CLI
 * as a child process to show the wiring and the exit code.
 */
import { createHash } from "node:crypto";
import { loadConfig } from "../../src/config/load";
import { configCheckCommand } from "../../src/cli/commands/config-check";
import type { RunningSimulator } from "../../src/simulator";
import { runCompiledCli } from "../helpers/compiled-build";
import { KEYS, startTestSimulator } from "../helpers/simulator";

const hash = (t: string) => createHash("sha256").update(t).digest("hex");
let sim: RunningSimulator;
beforeAll(async () => { sim = await startTestSimulator(); });
afterAll(async () => sim.close());

/** A workforce directory on the simulator, its key in `<ID>_KEY`. */
function dir(id: string, platform: Record<string, unknown> = {}) {
  return { id, tokenHashes: [hash(`${id}-token`)], target: "workforce", platform: { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: `${id.toUpperCase()}_KEY`, ...platform } };
}

/** Runs the check on `directories` with `env`; resolves with the exit code and what it printed. */
async function check(directories: object[], env: NodeJS.ProcessEnv, online = false): Promise<{ code: number; stdout: string; stderr: string }> {
  const config = loadConfig({ env: {}, overrides: { directories } });
  const out: string[] = [];
  const err: string[] = [];
  const code = await configCheckCommand(config, env, online, (s) => out.push(s), (s) => err.push(s));
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("configCheckCommand", () => {
  it("should pass when every named variable is set and every URL is https or loopback", async () => {
    const r = await check([dir("a"), dir("b", { baseUrl: "https://acme.example.com/api" })], { A_KEY: "x", B_KEY: "y" });
    expect(r).toEqual({ code: 0, stderr: "", stdout: "configuration OK: 2 directories (a:workforce, b:workforce), Redis redis://127.0.0.1:6379, port 8080" });
  });

  it("should name each directory whose API key variable is not set", async () => {
    const r = await check([dir("a"), dir("b")], { A_KEY: "x", B_KEY: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('configuration has 1 problem(s):\n- directories.1.platform.apiKeyEnv (directory "b"): environment variable B_KEY is not set; '
      + "the worker role needs it to reach the platform. Fix: export B_KEY=<platform API key>");
    expect(r.stdout).toBe("");
  });

  it("should refuse a plain-http platform URL on a remote host unless allowPlainHttp is set", async () => {
    const plain = { baseUrl: "http://platform.example.com/api" };
    const r = await check([dir("a", plain)], { A_KEY: "x" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('- directories.0.platform.baseUrl (directory "a"): Only HTTPS is accepted');
    expect(await check([dir("a", { ...plain, allowPlainHttp: true })], { A_KEY: "x" })).toMatchObject({ code: 0, stderr: "" });
  });

  it("online: should verify each key against its deployment, naming the directories whose key fails", async () => {
    const env = { GOOD_KEY: KEYS.unscoped, EXPIRED_KEY: KEYS.expired, SCOPED_KEY: KEYS.scoped };
    const r = await check([dir("good"), dir("expired"), dir("scoped", { deploymentId: 2 })], env, true);
    expect(r.code).toBe(2);
    expect(r.stdout.split("\n").filter((l) => !l.startsWith("ok: Redis "))).toEqual([`ok: directory "good": the key in GOOD_KEY works and covers deployment 1 ("production") at ${sim.baseUrl}`]);
    const problems = r.stderr.split("\n");
    expect(problems[0]).toBe("configuration has 2 problem(s):");
    expect(problems[1]).toMatch(new RegExp(`^- directories\\.1\\.platform \\(directory "expired"\\): the platform at ${sim.baseUrl} refuses the key in EXPIRED_KEY \\(401\\): .*key expired`));
    expect(problems[2]).toMatch(new RegExp(`^- directories\\.2\\.platform \\(directory "scoped"\\): the key in SCOPED_KEY does not cover deployment 2 at ${sim.baseUrl}: `));
    const ok = await check([dir("good")], env, true);
    expect(ok).toMatchObject({ code: 0, stderr: "" });
    expect(ok.stdout).toMatch(/configuration OK: 1 directories \(good:workforce\), .*; Redis set-up and every platform key verified$/);
  });

  it("online: should say so when the platform cannot be reached, rather than blame the key", async () => {
    const r = await check([dir("gone", { baseUrl: "http://127.0.0.1:1/api", timeoutMs: 2000 })], { GONE_KEY: KEYS.unscoped }, true);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('directories.0.platform (directory "gone"): could not verify the key in GONE_KEY at http://127.0.0.1:1/api: ');
  });
});

describe("scim-bridge config check (the command)", () => {
  it("should exit 2 naming an unknown key with the nearest valid one, or a variable that is not set", async () => {
    const run = (config: object, env: NodeJS.ProcessEnv) => runCompiledCli(["config", "check"], { SCIM_BRIDGE_CONFIG: "", SCIM_BRIDGE_CONFIG_JSON: JSON.stringify(config), ...env });
    const [typo, missing] = await Promise.all([
      run({ directories: [{ ...dir("a"), rateLimt: { max: 5 } }], sync: { attemps: 3 } }, { A_KEY: "x" }),
      run({ directories: [dir("a")] }, { A_KEY: "" }),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("- directories.0.rateLimt: unknown key; did you mean `rateLimit`?");
    expect(typo.stderr).toContain("- sync.attemps: unknown key; did you mean `attempts`?");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("environment variable A_KEY is not set");
  });
});
