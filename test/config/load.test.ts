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

  it("should refuse a misspelt key anywhere, naming its path and the nearest valid key", () => {
    const over = {
      rateLimt: {},
      sync: { attemps: 3 },
      directories: [dir({ rateLimt: { max: 5 }, platform: { ...dir().platform, deploymentID: 2 }, workforce: { onUserDelet: "delete" } })],
    };
    expectConfigError(
      () => loadConfig({ env: {}, overrides: over }),
      "- rateLimt: unknown key; expected one of: server, redis, scim, auth, admin, sync, metrics, oauth, activity, shutdown, registry, log, directories",
      "- sync.attemps: unknown key; did you mean `attempts`?",
      "- directories.0.rateLimt: unknown key; did you mean `rateLimit`?",
      "- directories.0.platform.deploymentID: unknown key; did you mean `deploymentId`?",
      "- directories.0.workforce.onUserDelet: unknown key; did you mean `onUserDelete`?",
    );
  });

  it("should refuse unknown keys in every nested object of the schema", () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ["server.prot", { server: { prot: 1 } }],
      ["redis.keyprefix", { redis: { keyprefix: "x" } }],
      ["scim.maxResult", { scim: { maxResult: 1 } }],
      ["auth.maxFailure", { auth: { maxFailure: 1 } }],
      ["admin.tokenHash", { admin: { tokenHash: [] } }],
      ["metrics.workerPrt", { metrics: { workerPrt: 1 } }],
      ["log.levl", { log: { levl: "info" } }],
      ["directories.0.rateLimit.mx", { directories: [dir({ rateLimit: { mx: 1 } })] }],
      ["directories.0.embed.tenantname", { directories: [dir({ target: "embed", embed: { tenantName: "tenant-a", tenantname: "x" } })] }],
      ["directories.0.embed.attributeMapping.0.nmae", { directories: [dir({ target: "embed", embed: { tenantName: "tenant-a", attributeMapping: [{ scim: "title", name: "t", type: "string", nmae: "x" }] } })] }],
    ];
    for (const [key, over] of cases) expectConfigError(() => loadConfig({ env: {}, overrides: over }), `- ${key}: unknown key; did you mean`);
  });

  it("should list several unknown keys of one object together", () => {
    expectConfigError(() => loadConfig({ env: {}, overrides: { sync: { attemps: 1, colour: "red" } } }),
      "- sync: unknown keys `attemps` (did you mean `attempts`?), `colour`; expected one of: attempts, backoffMs");
  });

  it("should refuse a token hash configured for two directories, naming both", () => {
    expectConfigError(
      () => loadConfig({ env: {}, overrides: { directories: [dir(), dir({ id: "other" })] } }),
      `- directories.1.tokenHashes.0: token hash sha256:${hash("t1").slice(0, 12)}… is configured for directory "acme" and directory "other"`,
    );
  });

  it("should refuse a token hash configured for a directory and the admin API, naming both", () => {
    expectConfigError(
      () => loadConfig({ env: { ADMIN_TOKEN_HASHES: `sha256:${hash("t1")}` }, overrides: { directories: [dir()] } }),
      `- admin.tokenHashes.0 (from ADMIN_TOKEN_HASHES): token hash sha256:${hash("t1").slice(0, 12)}… is configured for directory "acme" and the admin API: a SCIM token must never be an admin token`,
    );
  });

  it("should take the worker metrics port from METRICS_PORT", () => {
    expect(loadConfig({ env: { METRICS_PORT: "9555" } }).metrics.workerPort).toBe(9555);
    expectConfigError(() => loadConfig({ env: { METRICS_PORT: "x" } }), "METRICS_PORT (metrics.workerPort): expected a whole number");
  });

  it("should accept every configuration file the repository ships", () => {
    for (const file of ["compose.example.json"]) {
      expect(() => loadConfig({ env: { SCIM_BRIDGE_CONFIG: path.resolve(__dirname, "../../config", file) } })).not.toThrow();
    }
  });
});
