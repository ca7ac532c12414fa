/**
 * For the demo on a fresh machine: make sure a Redis answers at REDIS_URL; if none does and the URL points
 * at this machine, start a private `redis-server` (AOF on, data under ./.data/redis, git-ignored); if
 * redis-server is not installed, say exactly how to get one.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

/** Resolves true when something answers PING at host:port within `timeoutMs`. */
export function redisAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, host);
    const done = (ok: boolean) => { s.destroy(); resolve(ok); };
    s.setTimeout(timeoutMs, () => done(false));
    s.on("connect", () => s.write("PING\r\n"));
    s.on("data", (d) => done(/^\+PONG|^-NOAUTH/.test(String(d))));
    s.on("error", () => done(false));
  });
}

export const NO_REDIS_HELP = (url: string) => `No Redis answers at ${url}, and redis-server is not installed here.
Get one of these, then run the demo again:
  - Debian/Ubuntu:  sudo apt-get install -y redis-server
  - macOS:          brew install redis
  - Docker:         docker compose up -d redis
or point REDIS_URL at a Redis you already run (REDIS_URL=redis://host:6379/0 npm run demo).`;

/**
 * Ensures Redis; returns the child it started (to stop on exit), or undefined if one was already there.
 * `binary` (default: $REDIS_SERVER_BIN or `redis-server` on PATH) is the server to start.
 */
export async function ensureRedis(url: string, dataDir: string, log: (m: string) => void,
  binary = process.env.REDIS_SERVER_BIN || "redis-server"): Promise<ChildProcess | undefined> {
  const u = new URL(url);
  const host = u.hostname || "127.0.0.1";
  const port = Number(u.port || 6379);
  if (await redisAnswers(host, port)) return undefined;
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) {
    throw new Error(`No Redis answers at ${url}. Start it, or unset REDIS_URL to let the demo run a local one.`);
  }
  if (spawnSync(binary, ["--version"], { stdio: "ignore" }).error) throw new Error(NO_REDIS_HELP(url));
  fs.mkdirSync(dataDir, { recursive: true });
  log(`no Redis at ${url}: starting a private redis-server (AOF on, data in ${path.relative(process.cwd(), dataDir) || dataDir})`);
  const child = spawn(binary, [
    "--port", String(port), "--bind", "127.0.0.1", "--dir", dataDir, "--appendonly", "yes", "--appendfsync", "everysec",
    "--save", "", "--maxmemory-policy", "noeviction", "--logfile", path.join(dataDir, "redis.log"),
  ], { stdio: "ignore" });
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(host, port, 200)) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`redis-server did not start on port ${port}; see ${path.join(dataDir, "redis.log")}`);
}
