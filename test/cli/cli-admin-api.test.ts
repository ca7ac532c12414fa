/**
 * The CLI against a running `npm run demo` (issue 14 §3): the demo is a child process on free ports whose
 * directories live only in its own configuration, and the CLI, compiled to JavaScript as `npm run build`
 * does (no tsx), reaches them through the demo's admin API with the URL and admin token the demo prints.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { compiledBuild, runCompiledCli } from "../helpers/compiled-build";
import { freePort } from "../helpers/free-port";
import { ProcessSet, ROOT, type Proc } from "../helpers/processes";
import { cleanPrefixAt, testPrefix, TEST_REDIS_ENV, TEST_REDIS_URL } from "../helpers/redis";
import { userBody } from "../helpers/expect-scim";
import { waitFor } from "../helpers/sync-env";

const SCIM_TOKEN = "cli-demo-scim-token";
const ADMIN_TOKEN = "cli-demo-admin-token";
const PLATFORM_KEY = "cli-demo-platform-key";
const set = new ProcessSet();
const prefix = testPrefix();
let demo: Proc;
let port: number;
let buildDir: string;
/** The environment the demo told us to export. */
let printedEnv: Record<string, string>;
let simBaseUrl: string;

/** Runs the compiled CLI with `args` (in a temp dir: nothing of the repository is needed); resolves with its exit code and output. */
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCompiledCli(args, { SCIM_BRIDGE_URL: "", SCIM_BRIDGE_ADMIN_TOKEN: "", ...env });

const admin = (p: string) => fetch(`http://127.0.0.1:${port}/admin${p}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.json());
const scim = (method: string, p: string, body?: object) => fetch(`http://127.0.0.1:${port}/scim/v2/demo${p}`, {
  method, headers: { Authorization: `Bearer ${SCIM_TOKEN}`, "Content-Type": "application/scim+json" }, body: body && JSON.stringify(body),
});
const platform = (method: string, p: string, body?: object) => fetch(`${simBaseUrl}/scim/v2${p}`, {
  method, headers: { Authorization: `Bearer ${PLATFORM_KEY}`, "Content-Type": "application/scim+json" }, body: body && JSON.stringify(body),
});
const isFailed = async (id: string) => ((await admin("/directories/demo/failed")) as Array<{ id: string }>).some((f) => f.id === id);
/** Whether the platform has a user of this userName (a new SCIM user is not "pending" until the dispatcher has read it). */
const onPlatform = async (userName: string) =>
  ((await (await platform("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).json()) as { totalResults: number }).totalResults === 1;

beforeAll(async () => {
  buildDir = path.join(compiledBuild(), "dist");
  port = await freePort();
  demo = set.spawnTs("demo", "src/cli/demo.ts", [], {
    // the test Redis, a cluster in the cluster project (where cleanPrefixAt cleans)
    PORT: String(port), SIM_PORT: "0", ...TEST_REDIS_ENV, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: "silent",
    DEMO_SCIM_TOKEN: SCIM_TOKEN, DEMO_ADMIN_TOKEN: ADMIN_TOKEN, DEMO_PLATFORM_API_KEY: PLATFORM_KEY
  });
  await demo.waitForLine(/^Stop with Ctrl-C/, 30000);
  const exportLine = await demo.waitForLine(/^\s+export SCIM_BRIDGE_URL=/, 0);
  printedEnv = Object.fromEntries([...exportLine.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  simBaseUrl = /Simulator:\s+(\S+)/.exec(await demo.waitForLine(/Simulator:/, 0))![1];
  // the demo resyncs both directories when it starts: let those finish, so ours is the next one
  for (const dir of ["demo", "demo-embed"]) {
    await waitFor(async () => ((await admin(`/directories/${dir}/resync`)) as { status?: string }).status === "done", 20000, `the start resync of ${dir}`);
  }
}, 60000);

afterAll(async () => {
  await set.killAll();
  await cleanPrefixAt(TEST_REDIS_URL, prefix);
});

describe("scim-bridge (compiled) against a running npm run demo", () => {
  it("should be the build's bin, a node script", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin["scim-bridge"]).toBe("dist/cli/index.js");
    expect(fs.readFileSync(path.join(buildDir, "cli/index.js"), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });

  it("the image's entry point: should run `scim-bridge status` from PATH (the Dockerfile's symlink to the compiled CLI)", async () => {
    // what the runtime stage does: dist/ in the working directory, /usr/local/bin/scim-bridge -> dist/cli/index.js (mode 755)
    const app = path.dirname(buildDir);
    const bin = set.tempDir("bin");
    expect(fs.statSync(path.join(buildDir, "cli/index.js")).mode & 0o111).toBe(0o111);
    fs.symlinkSync(path.join(buildDir, "cli/index.js"), path.join(bin, "scim-bridge"));
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn("sh", [path.join(ROOT, "docker/entrypoint.sh"), "scim-bridge", "status"], {
        cwd: app, env: { ...process.env, ...printedEnv, PATH: `${bin}${path.delimiter}${process.env.PATH}` }, stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => { out += d.toString(); });
      child.stderr.on("data", (d: Buffer) => { out += d.toString(); });
      child.on("close", (code) => resolve({ code, out }));
    });
    expect(r.out).toMatch(/^demo\s+/m);
    expect(r.out).toMatch(/^demo-embed\s+/m);
    expect(r.code).toBe(0);
  });

  it("npm run demo: should print the URL and admin token to give the CLI, and the commands", () => {
    expect(printedEnv).toEqual({ SCIM_BRIDGE_URL: `http://127.0.0.1:${port}`, SCIM_BRIDGE_ADMIN_TOKEN: ADMIN_TOKEN });
    for (const cmd of ["status", "resync demo", "retry-failed demo"]) expect(demo.grep(new RegExp(`^\\s+npm run cli -- ${cmd}$`))).toHaveLength(1);
  });

  it("status --url --admin-token: should list the demo's directories", async () => {
    const r = await cli(["status", "--url", `http://127.0.0.1:${port}`, "--admin-token", ADMIN_TOKEN]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^demo\s+(in sync|syncing)\s+synced \d+ pending \d+ failed 0/m);
    expect(r.stdout).toMatch(/^demo-embed\s+.* external users \d+\/10000/m);
    const json = await cli(["status", "--json"], printedEnv);
    expect((JSON.parse(json.stdout) as Array<{ id: string }>).map((d) => d.id)).toEqual(["demo", "demo-embed"]);
  });

  it("resync <dir> with the printed environment: should follow the demo's resync to its summary", async () => {
    const created = await scim("POST", "/Users", userBody("cli.resync@example.com"));
    expect(created.status).toBe(201);
    await waitFor(async () => await onPlatform("cli.resync@example.com") && ((await admin("/directories/demo")) as { items: { pending: number } }).items.pending === 0, 20000, "the new user synced");
    const r = await cli(["resync", "demo"], printedEnv);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("resync of demo queued");
    expect(r.stdout).toMatch(/\] 100% \d+\/\d+ done/);
    expect(r.stdout).toMatch(/resync done in [\d.]+ s: created 0, updated 0, deactivated 0, deleted 0, unchanged \d+, failed 0/);
    expect(r.code).toBe(0);
  }, 30000);

  it("retry-failed <dir>: should queue the demo's failed item again, which then syncs", async () => {
    // a rename onto a userName the platform already has fails the item (409 uniqueness on the platform)
    const created = await scim("POST", "/Users", userBody("cli.retry@example.com"));
    const id = ((await created.json()) as { id: string }).id;
    await waitFor(() => onPlatform("cli.retry@example.com"), 20000, "the user synced");
    const taken = await platform("POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "cli.taken@example.com" });
    expect(taken.status).toBe(201);
    const takenId = ((await taken.json()) as { id: string }).id;
    expect((await scim("PATCH", `/Users/${id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "userName", value: "cli.taken@example.com" }] })).status).toBe(200);
    await waitFor(() => isFailed(id), 20000, "the renamed user failed");

    expect((await platform("DELETE", `/Users/${takenId}`)).status).toBe(204); // the platform's admin frees the name
    const r = await cli(["retry-failed", "demo"], printedEnv);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toContain("1 failed item(s) of demo queued again");
    await waitFor(async () => !(await isFailed(id)) && ((await admin("/directories/demo")) as { items: { pending: number } }).items.pending === 0, 20000, "the retried user synced");
  }, 40000);

  it("should name the demo's directories for an unknown one, and refuse a wrong admin token", async () => {
    const unknown = await cli(["resync", "nope"], printedEnv);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown directory "nope" (configured: demo, demo-embed)');
    const wrong = await cli(["status"], { ...printedEnv, SCIM_BRIDGE_ADMIN_TOKEN: "not-the-admin-token" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("refused the admin token (401)");
    const noToken = await cli(["status", "--url", `http://127.0.0.1:${port}`]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain("--url needs the admin token");
  });
});
