/**
 * Loads the configuration: config/default.json, then config/<NODE_ENV>.json (if present), then the JSON
 * file named by SCIM_BRIDGE_CONFIG, then SCIM_BRIDGE_CONFIG_JSON (inline JSON), then single environment
 * variables (table `ENV_KEYS`). Later sources win; objects merge, arrays replace.
 * A bad value throws `ConfigError`, whose message names the key, where it came from and what is expected.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { configSchema, type Config } from "./schema";

/** Environment variables that override one config key each. */
export const ENV_KEYS: Record<string, { path: string[]; type: "string" | "int" | "list" | "bool" }> = {
  PORT: { path: ["server", "port"], type: "int" },
  HOST: { path: ["server", "host"], type: "string" },
  PUBLIC_BASE_URL: { path: ["server", "publicBaseUrl"], type: "string" },
  REDIS_URL: { path: ["redis", "url"], type: "string" },
  REDIS_KEY_PREFIX: { path: ["redis", "keyPrefix"], type: "string" },
  REDIS_CLUSTER_NODES: { path: ["redis", "clusterNodes"], type: "list" },
  REDIS_SENTINELS: { path: ["redis", "sentinels"], type: "list" },
  REDIS_SENTINEL_MASTER: { path: ["redis", "sentinelMaster"], type: "string" },
  REDIS_ALLOW_EVICTION_POLICY: { path: ["redis", "allowEvictionPolicy"], type: "bool" },
  REDIS_TLS_CA_FILE: { path: ["redis", "tls", "caFile"], type: "string" },
  REDIS_TLS_SERVERNAME: { path: ["redis", "tls", "servername"], type: "string" },
  REDIS_REPLICA_ACK: { path: ["redis", "replicaAck", "replicas"], type: "int" },
  REDIS_REPLICA_ACK_TIMEOUT_MS: { path: ["redis", "replicaAck", "timeoutMs"], type: "int" },
  LOG_LEVEL: { path: ["log", "level"], type: "string" },
  ADMIN_TOKEN_HASHES: { path: ["admin", "tokenHashes"], type: "list" },
  METRICS_PORT: { path: ["metrics", "workerPort"], type: "int" },
  SHUTDOWN_TIMEOUT_MS: { path: ["shutdown", "timeoutMs"], type: "int" },
};

/** A configuration that cannot be used; the message is meant for the operator, as is. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

type Json = Record<string, unknown>;

function isPlainObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deep merge: objects merge key by key, everything else (arrays included) is replaced. */
export function mergeConfig(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (k === "__proto__" || k === "constructor" || k === "prototype") continue;
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? mergeConfig(out[k] as Json, v) : v;
  }
  return out;
}

function readJsonFile(file: string, what: string): Json {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}). Fix: point it at an existing JSON file.`);
  }
  return parseJson(text, `${what} (${file})`);
}

function parseJson(text: string, what: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${what}: not valid JSON (${(err as Error).message}). Fix the syntax.`);
  }
  if (!isPlainObject(value)) throw new ConfigError(`${what}: expected a JSON object at the top level.`);
  return value;
}

function setPath(obj: Json, keys: string[], value: unknown): void {
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (!isPlainObject(cur[k])) cur[k] = {};
    cur = cur[k] as Json;
  }
  cur[keys[keys.length - 1]] = value;
}

/** Options for `loadConfig`; all default to the process's own. */
export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  configDir?: string;
  /** Extra layer merged last (used by the demo and by tests). */
  overrides?: Json;
}

/** Reads every source, merges and validates. Throws `ConfigError` naming the key on a bad value. */
export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const configDir = opts.configDir ?? path.resolve(__dirname, "../../config");
  const origins = new Map<string, string>();
  let merged: Json = {};

  const defaultFile = path.join(configDir, "default.json");
  if (fs.existsSync(defaultFile)) merged = readJsonFile(defaultFile, "config/default.json");
  const envName = env.NODE_ENV;
  if (envName && /^[a-z0-9-]+$/i.test(envName)) {
    const envFile = path.join(configDir, `${envName}.json`);
    if (fs.existsSync(envFile)) merged = mergeConfig(merged, readJsonFile(envFile, `config/${envName}.json`));
  }
  if (env.SCIM_BRIDGE_CONFIG) merged = mergeConfig(merged, readJsonFile(env.SCIM_BRIDGE_CONFIG, "SCIM_BRIDGE_CONFIG"));
  if (env.SCIM_BRIDGE_CONFIG_JSON) merged = mergeConfig(merged, parseJson(env.SCIM_BRIDGE_CONFIG_JSON, "SCIM_BRIDGE_CONFIG_JSON"));

  for (const [name, spec] of Object.entries(ENV_KEYS)) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    let value: unknown = raw;
    if (spec.type === "int") {
      if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} (${spec.path.join(".")}): expected a whole number, got ${JSON.stringify(raw)}.`);
      value = Number(raw.trim());
    } else if (spec.type === "bool") {
      if (!/^(true|false)$/i.test(raw.trim())) throw new ConfigError(`${name} (${spec.path.join(".")}): expected true or false, got ${JSON.stringify(raw)}.`);
      value = raw.trim().toLowerCase() === "true";
    } else if (spec.type === "list") {
      value = raw.split(",").map((s) => s.trim()).filter(Boolean);
    }
    setPath(merged, spec.path, value);
    origins.set(spec.path.join("."), name);
  }
  if (opts.overrides) merged = mergeConfig(merged, opts.overrides);

  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(formatConfigError(parsed.error, origins));
  return parsed.data;
}

/** Turns zod issues into one operator-readable message: key, origin, what is expected. */
export function formatConfigError(error: z.ZodError, origins = new Map<string, string>()): string {
  const lines = configIssueLines(error, origins);
  return `Invalid configuration:\n${lines.join("\n")}\nFix these keys in config/*.json, the file at SCIM_BRIDGE_CONFIG, or the environment variable named.`;
}

/** One line per zod issue, `- <key>[ (from ENV)]: <message>` (also used for directories made at runtime). */
export function configIssueLines(error: z.ZodError, origins = new Map<string, string>()): string[] {
  return error.issues.map((issue) => {
    // one unknown key: name it in the path (`directories.0.rateLimt: unknown key; did you mean …`)
    const path = issue.code === "unrecognized_keys" && issue.keys.length === 1 ? [...issue.path, issue.keys[0]] : issue.path;
    const key = path.map(String).join(".") || "(top level)";
    // an environment variable names a key or a list (`admin.tokenHashes.0` came from ADMIN_TOKEN_HASHES)
    const origin = [...origins].find(([k]) => key === k || key.startsWith(`${k}.`))?.[1];
    return `- ${key}${origin ? ` (from ${origin})` : ""}: ${issue.message}`;
  });
}
