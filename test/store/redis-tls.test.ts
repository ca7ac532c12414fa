/**
 * Redis over TLS: a start-up that cannot connect says which TLS check failed and what to set, instead of
 * "Redis did not answer" (issue 14 item 4, issue 12 item 3). Against a private redis-server with a
 * throw-away CA whose certificate names only `redis.test`.
 */
import { loadConfig } from "../../src/config/load";
import { createLogger } from "../../src/observability/logger";
import { startServer } from "../../src/roles/server";
import { createStoreConnection, waitReady, type RedisSettings } from "../../src/store";
import { ProcessSet } from "../helpers/processes";
import { startTlsRedis, type TlsRedis } from "../helpers/tls-redis";

const set = new ProcessSet();
let r: TlsRedis;

beforeAll(async () => { r = await startTlsRedis(set); });
afterAll(() => set.killAll());

/** Connects with `settings` and returns waitReady's error message ("" when it connected). */
async function startError(settings: RedisSettings, timeoutMs = 10000): Promise<string> {
  const redis = createStoreConnection(settings);
  redis.on("error", () => undefined);
  try {
    await waitReady(redis, timeoutMs);
    expect(await redis.ping()).toBe("PONG");
    return "";
  } catch (err) {
    return (err as Error).message;
  } finally {
    redis.disconnect();
  }
}

describe("a Redis connection over TLS", () => {
  it("should connect with the CA file and the name the certificate carries", async () => {
    expect(await startError({ url: `rediss://127.0.0.1:${r.tlsPort}`, tls: { caFile: r.caFile, servername: r.servername } })).toBe("");
  });

  it("should name a certificate the client does not trust, and the setting that fixes it", async () => {
    const msg = await startError({ url: `rediss://127.0.0.1:${r.tlsPort}`, tls: { servername: r.servername } });
    expect(msg).toMatch(/TLS certificate verify failed/);
    expect(msg).toMatch(/REDIS_TLS_CA_FILE/);
    expect(msg).toContain(`rediss://127.0.0.1:${r.tlsPort}`);
  });

  it("should name a host name the certificate does not carry, and the setting that fixes it", async () => {
    const msg = await startError({ url: `rediss://127.0.0.1:${r.tlsPort}`, tls: { caFile: r.caFile } });
    expect(msg).toMatch(/TLS hostname mismatch/);
    expect(msg).toMatch(/REDIS_TLS_SERVERNAME/);
  });

  it("should say the server does not speak TLS when rediss:// points at a plain port", async () => {
    const msg = await startError({ url: `rediss://127.0.0.1:${r.plainPort}`, tls: { caFile: r.caFile, servername: r.servername } }, 3000);
    expect(msg).toMatch(/does not speak TLS/);
  });

  it("should point at rediss:// when a plain redis:// client meets a TLS-only port", async () => {
    const msg = await startError({ url: `redis://127.0.0.1:${r.tlsPort}` }, 3000);
    expect(msg).toMatch(/rediss:\/\//);
    expect(msg).not.toMatch(/did not answer/);
  });

  it("should stop the server role at start with that message (config from the environment)", async () => {
    const config = loadConfig({ env: { REDIS_URL: `rediss://127.0.0.1:${r.tlsPort}`, REDIS_TLS_CA_FILE: r.caFile }, overrides: { log: { level: "silent" }, server: { port: 0 } } });
    await expect(startServer(config, createLogger("silent"))).rejects.toThrow(/TLS hostname mismatch.*REDIS_TLS_SERVERNAME/);
  });

  it("should refuse TLS options with a redis:// URL, and a CA file that does not exist, naming the key", () => {
    expect(() => loadConfig({ env: { REDIS_URL: "redis://127.0.0.1:6379", REDIS_TLS_SERVERNAME: "redis.test" } })).toThrow(/redis\.tls.*rediss:\/\//s);
    expect(() => loadConfig({ env: { REDIS_URL: "rediss://127.0.0.1:6379", REDIS_TLS_CA_FILE: "/nonexistent/ca.pem" } })).toThrow(/redis\.tls\.caFile.*file not found/s);
  });
});
