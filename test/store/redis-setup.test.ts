/**
 * The Redis set-up the bridge needs, refused at start when it is not there: the database `redis.url` names
 * must exist (ioredis would otherwise go on in database 0), and `maxmemory-policy` must be `noeviction`
 * unless `redis.allowEvictionPolicy` accepts another. Against a private redis-server (4 databases,
 * allkeys-lru), never the shared one; `config check --online` says the same.
 */
import { Redis } from "ioredis";
import { loadConfig, ConfigError } from "../../src/config/load";
import { createLogger } from "../../src/observability/logger";
import { startServer } from "../../src/roles/server";
import { startSyncRuntime } from "../../src/roles/worker";
import { configCheckCommand } from "../../src/cli/commands/config-check";
import { ProcessSet, RedisServerProcess } from "../helpers/processes";

const set = new ProcessSet();
let lru: RedisServerProcess;
let plain: RedisServerProcess;
let probe: Redis;
beforeAll(async () => {
  [lru, plain] = await Promise.all([
    RedisServerProcess.start(set, ["--databases", "4", "--maxmemory-policy", "allkeys-lru"]),
    RedisServerProcess.start(set, ["--databases", "4"]),
  ]);
  probe = new Redis(lru.url);
}, 30000);
afterAll(async () => { probe?.disconnect(); await set.killAll(); });

const config = (url: string, redis: Record<string, unknown> = {}) =>
  loadConfig({ env: {}, overrides: { server: { host: "127.0.0.1", port: 0 }, redis: { url, keyPrefix: "setup", ...redis } } });
const silent = createLogger("silent");

/** Every key of every database of the private server (none may be written by a refused start). */
async function keysEverywhere(server: RedisServerProcess): Promise<number> {
  const r = new Redis(server.url);
  try {
    const info = await r.info("keyspace");
    return [...info.matchAll(/keys=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
  } finally {
    r.disconnect();
  }
}

describe("the Redis database index", () => {
  it("should refuse at start a database the server does not have, and write nothing to database 0", async () => {
    for (const start of [() => startServer(config(`${plain.url}/99`), silent), () => startSyncRuntime(config(`${plain.url}/99`), silent)]) {
      await expect(start()).rejects.toThrow(/redis\.url \(REDIS_URL\): database 99 does not exist on this Redis \(ERR DB index is out of range; it has databases 0–3\)/);
    }
    expect(await keysEverywhere(plain)).toBe(0);
  });

  it("should run in an existing database", async () => {
    const server = await startServer(config(`${plain.url}/3`), silent);
    await server.close();
    expect(await keysEverywhere(plain)).toBe(0);
  });

  it("should refuse an index that is not a number, and any but 0 on Redis Cluster, when the config is read", () => {
    expect(() => config("redis://127.0.0.1:6379/abc")).toThrow(ConfigError);
    expect(() => config("redis://127.0.0.1:6379/abc")).toThrow(/redis\.url.*database index, a number such as \/0 or \/3; "\/abc" is not one/);
    expect(() => config("redis://127.0.0.1:6379/3", { clusterNodes: ["127.0.0.1:7000"] })).toThrow(/Redis Cluster has only database 0/);
    expect(config("redis://127.0.0.1:6379/0", { clusterNodes: ["127.0.0.1:7000"] }).redis.url).toMatch(/\/0$/);
  });
});

describe("maxmemory-policy", () => {
  it("should refuse at start a policy other than noeviction, naming the fix, and write nothing", async () => {
    expect(await probe.config("GET", "maxmemory-policy")).toEqual(["maxmemory-policy", "allkeys-lru"]);
    for (const start of [() => startServer(config(lru.url), silent), () => startSyncRuntime(config(lru.url), silent)]) {
      const err = await start().then(() => undefined, (e: Error) => e);
      expect(err?.message).toMatch(/maxmemory-policy is allkeys-lru: .* Fix: set maxmemory-policy noeviction .* or set redis\.allowEvictionPolicy \(REDIS_ALLOW_EVICTION_POLICY=true\)/);
    }
    expect(await keysEverywhere(lru)).toBe(0);
  });

  it("should run when redis.allowEvictionPolicy accepts it (also from REDIS_ALLOW_EVICTION_POLICY)", async () => {
    const server = await startServer(config(lru.url, { allowEvictionPolicy: true }), silent);
    await server.close();
    expect(loadConfig({ env: { REDIS_ALLOW_EVICTION_POLICY: "true" } }).redis.allowEvictionPolicy).toBe(true);
    expect(() => loadConfig({ env: { REDIS_ALLOW_EVICTION_POLICY: "yes" } })).toThrow(/REDIS_ALLOW_EVICTION_POLICY \(redis\.allowEvictionPolicy\): expected true or false/);
  });

  it("config check --online: should say so, and say what it verified", async () => {
    const run = async (url: string, redis: Record<string, unknown> = {}) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await configCheckCommand(config(url, redis), {}, true, (s) => out.push(s), (s) => err.push(s));
      return { code, stdout: out.join("\n"), stderr: err.join("\n") };
    };
    const refused = await run(lru.url);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/- Redis maxmemory-policy is allkeys-lru: /);
    const missing = await run(`${plain.url}/7`);
    expect(missing.stderr).toMatch(/- redis\.url \(REDIS_URL\): database 7 does not exist/);
    const allowed = await run(lru.url, { allowEvictionPolicy: true });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain(`ok: Redis maxmemory-policy is allkeys-lru, accepted by redis.allowEvictionPolicy: a full Redis may drop keys (Redis at redis://127.0.0.1:${lru.port})`);
    const fine = await run(`${plain.url}/2`);
    expect(fine).toMatchObject({ code: 0, stderr: "" });
    expect(fine.stdout).toContain("ok: Redis database 2 exists");
    expect(fine.stdout).toContain("ok: Redis maxmemory-policy is noeviction");
  });
});
