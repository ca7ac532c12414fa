/**
 * The repository compiled as `npm run build` does (tsc with tsconfig.build.json, the Lua commands copied,
 * the CLI made executable), for the suites that run the CLI as operators do: from JavaScript, without tsx.
 * Built once per state of the sources into `<tmp>/scim-bridge-build-<hash>` and shared by every suite and
 * jest worker (a build is renamed into place whole, so a suite never sees half of one); `node_modules` and
 * `config` there are links to the repository's. The checkout's path is part of the hash: two clones of the
 * same commit each get their own build, so removing one clone never leaves the other a build whose links
 * point nowhere ("Cannot find module 'commander'").
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./processes";

/** Hash of everything the build reads, and of where it is (the links point into this checkout). */
function sourceHash(): string {
  const h = createHash("sha256").update(ROOT).update("\0");
  const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  for (const file of [...walk(path.join(ROOT, "src")), ...["package.json", "tsconfig.json", "tsconfig.build.json"].map((f) => path.join(ROOT, f))].sort()) {
    h.update(path.relative(ROOT, file)).update("\0").update(fs.readFileSync(file)).update("\0");
  }
  return h.digest("hex").slice(0, 16);
}

let built: string | undefined;

/** The root of the build (`<root>/dist/cli/index.js` is the CLI, `<root>/dist/main.js` the roles). */
export function compiledBuild(): string {
  if (built) return built;
  const root = path.join(os.tmpdir(), `scim-bridge-build-${sourceHash()}`);
  if (!fs.existsSync(path.join(root, "dist/cli/index.js"))) {
    prune(path.basename(root));
    const staging = fs.mkdtempSync(`${root}-staging-`);
    const tsc = spawnSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json", "--outDir", path.join(staging, "dist")], { cwd: ROOT, encoding: "utf8" });
    if (tsc.status !== 0) throw new Error(`tsc failed: ${tsc.stdout}${tsc.stderr}`);
    fs.cpSync(path.join(ROOT, "src/store/commands"), path.join(staging, "dist/store/commands"), { recursive: true });
    fs.chmodSync(path.join(staging, "dist/cli/index.js"), 0o755);
    fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(staging, "node_modules"));
    fs.symlinkSync(path.join(ROOT, "config"), path.join(staging, "config"));
    try {
      fs.renameSync(staging, root);
    } catch {
      fs.rmSync(staging, { recursive: true, force: true }); // another suite put the same build in place first
    }
  }
  built = root;
  return root;
}

/** Removes builds (and staging dirs of crashed builds) of other source states older than a day. */
function prune(keep: string): void {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith("scim-bridge-build-") || name === keep) continue;
    const dir = path.join(os.tmpdir(), name);
    try {
      if (fs.lstatSync(dir).mtimeMs < dayAgo) fs.rmSync(dir, { recursive: true, force: true });
    } catch { /* gone meanwhile */ }
  }
}

/** What a CLI run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the compiled `scim-bridge <args>` (`dist/cli/index.js`, or `script` under dist/) with `env` over this
 * process's environment; resolves when it exits.
 */
export function runCompiledCli(args: string[], env: NodeJS.ProcessEnv = {}, script = "cli/index.js"): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(compiledBuild(), "dist", script), ...args], { cwd: os.tmpdir(), env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

