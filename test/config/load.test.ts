import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, loadConfig } from "../../src/config/load";

const hash = (t: string) => createHash("sha256").update(t).digest("hex");
const dir = (over: Record<string, unknown> = {}) => ({
  id: "acme",
  tokenHashes: [hash("t1")],
  target: "workforce",
  platform: { baseUrl: "http://127.0.0.1:8090/api", deploymentId: 1, apiKeyEnv: "ACME_KEY" },
  ...over,
});

function expectConfigError(fn: () => unknown, ...needles: string[]) {
  let err: unknown;
  try { fn(); } catch (e) { err = e; }
  expect(err).toBeInstanceOf(ConfigError);
  for (const n of needles) expect((err as Error).message).toContain(n);
}

describe("loadConfig", () => {
  it("should apply defaults from config/default.json when nothing else is set", () => {
    const c = loadConfig({ env: {} });
    expect(c.server.port).toBe(8080);
    expect(c.redis.url).toBe("redis://127.0.0.1:6379");
    expect(c.scim.maxResults).toBe(200);
    expect(c.directories).toEqual([]);
  });

  it("should let single environment variables override keys", () => {
    const c = loadConfig({ env: { PORT: "9123", REDIS_URL: "redis://127.0.0.1:6380/4", LOG_LEVEL: "warn" } });
    expect(c.server.port).toBe(9123);
    expect(c.redis.url).toBe("redis://127.0.0.1:6380/4");
    expect(c.log.level).toBe("warn");
  });

  it("should merge the file named by SCIM_BRIDGE_CONFIG over the defaults", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cfg-")), "c.json");
    fs.writeFileSync(file, JSON.stringify({ scim: { maxResults: 50 }, directories: [dir()] }));
    const c = loadConfig({ env: { SCIM_BRIDGE_CONFIG: file } });
    expect(c.scim.maxResults).toBe(50);
    expect(c.scim.defaultCount).toBe(100);
    expect(c.directories[0].tokenHashes[0]).toBe(hash("t1"));
    expect(c.directories[0].workforce.onUserDelete).toBe("deactivate");
  });

  it("should name the environment variable when it is not a number", () => {
    expectConfigError(() => loadConfig({ env: { PORT: "eighty" } }), "PORT", "server.port", "whole number");
  });

  it("should name the key and the expectation for a bad directory", () => {
    const bad = dir({ id: "Bad_Id", target: "embed", tokenHashes: ["not-a-hash"] });
    expectConfigError(
      () => loadConfig({ env: { SCIM_BRIDGE_CONFIG_JSON: JSON.stringify({ directories: [bad] }) } }),
      "directories.0.id", "directories.0.tokenHashes.0", "SHA-256", "directories.0.embed", "required when target is \"embed\"",
    );
  });

  it("should refuse two directories with one id", () => {
    expectConfigError(() => loadConfig({ env: {}, overrides: { directories: [dir(), dir()] } }), "duplicate directory id \"acme\"");
  });

  it("should refuse a file that is not JSON, naming the variable", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cfg-")), "c.json");
    fs.writeFileSync(file, "{ nope");
    expectConfigError(() => loadConfig({ env: { SCIM_BRIDGE_CONFIG: file } }), "SCIM_BRIDGE_CONFIG", "not valid JSON");
  });

  it("should accept hashes written as sha256:<hex> and normalise them", () => {
    const c = loadConfig({ env: {}, overrides: { directories: [dir({ tokenHashes: [`sha256:${hash("t1").toUpperCase()}`] })] } });
    expect(c.directories[0].tokenHashes[0]).toBe(hash("t1"));
  });
});
