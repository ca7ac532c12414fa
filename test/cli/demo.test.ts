import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { ensureRedis, redisAnswers } from "../../src/cli/local-redis";
import { freePort } from "../helpers/free-port";
import { cleanPrefix, testPrefix, TEST_REDIS_URL } from "../helpers/redis";

const ROOT = path.resolve(__dirname, "../..");

describe("ensureRedis (the demo on a fresh machine)", () => {
  it("should start a private redis-server with AOF on when none answers", async () => {
    // a port free a moment ago can be taken meanwhile (the ephemeral range also serves outgoing
    // connections of everything else on this machine): a start that lost its port to another socket
    // ("Address already in use" in its log) tries again on another
    let port = 0;
    let dir = "";
    let child;
    for (let attempt = 1; !child; attempt++) {
      port = await freePort();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-redis-"));
      try {
        child = await ensureRedis(`redis://127.0.0.1:${port}`, dir, () => undefined);
      } catch (err) {
        const lostPort = /Address already in use/.test(fs.readFileSync(path.join(dir, "redis.log"), "utf8"));
        if (!lostPort || attempt === 3) throw err;
      }
    }
    try {
      expect(child).toBeDefined();
      expect(await redisAnswers("127.0.0.1", port)).toBe(true);
      const r = new Redis(port, "127.0.0.1");
      expect(await r.config("GET", "appendonly")).toEqual(["appendonly", "yes"]);
      expect(await r.config("GET", "dir")).toEqual(["dir", fs.realpathSync(dir)]);
      r.disconnect();
    } finally {
      child?.kill("SIGKILL");
    }
  });

  it("should start nothing when a Redis already answers", async () => {
    expect(await ensureRedis(TEST_REDIS_URL, os.tmpdir(), () => undefined)).toBeUndefined();
  });

  it("should say exactly how to get Redis when redis-server is not installed", async () => {
    const port = await freePort();
    const started = ensureRedis(`redis://127.0.0.1:${port}`, os.tmpdir(), () => undefined, "redis-server-not-installed-here");
    started.then((child) => child?.kill("SIGKILL"), () => undefined);
    await expect(started).rejects.toThrow(/apt-get install -y redis-server[\s\S]*brew install redis[\s\S]*docker compose up -d redis/);
  });
});

describe("npm run demo", () => {
  let child: ChildProcess | undefined;
  const prefix = testPrefix();
  const db = 9;
  afterAll(async () => {
    child?.kill("SIGKILL");
    const r = new Redis(`${TEST_REDIS_URL.replace(/\/\d+$/, "")}/${db}`);
    await cleanPrefix(r, prefix);
    r.disconnect();
  });

  it("should serve the demo directory with the given token, honour the database index, and stop cleanly", async () => {
    const port = await freePort();
    const redisUrl = `${TEST_REDIS_URL.replace(/\/\d+$/, "")}/${db}`;
    // as `npm run demo` runs it: tsx as a loader in this one process, so SIGTERM reaches the demo itself
    child = spawn(process.execPath, ["--import", "tsx", "src/cli/demo.ts"], {
      cwd: ROOT, env: { ...process.env, PORT: String(port), SIM_PORT: "0", REDIS_URL: redisUrl, DEMO_SCIM_TOKEN: "demo-test-token", REDIS_KEY_PREFIX: prefix },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    // resolves once the demo has printed its banner (or has exited: the expectations below then say why)
    const banner = new Promise<void>((resolve) => {
      const seen = (d: Buffer) => { out += d; if (out.includes("Stop with Ctrl-C")) resolve(); };
      child!.stdout!.on("data", seen);
      child!.stderr!.on("data", seen);
      child!.once("exit", () => resolve());
    });
    await banner;
    expect(out).toContain(`SCIM base URL: http://127.0.0.1:${port}/scim/v2/demo`);
    expect(out).toContain("Bearer token:  demo-test-token");
    const u = new URL(redisUrl);
    expect(out).toContain(`Redis:         Redis at ${u.protocol}//${u.host}`);

    const base = `http://127.0.0.1:${port}/scim/v2/demo`;
    const headers = { Authorization: "Bearer demo-test-token", "Content-Type": "application/scim+json" };
    const created = await fetch(`${base}/Users`, { method: "POST", headers, body: JSON.stringify({ userName: "demo.user" }) });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/Users`, { headers: { Authorization: "Bearer wrong" } })).status).toBe(401);

    const r = new Redis(redisUrl);
    expect(await r.zcard(`${prefix}:{demo}:users`)).toBe(1);
    r.disconnect();

    const exit = new Promise<number | null>((resolve) => child!.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    child = undefined;
  }, 30000);
});
