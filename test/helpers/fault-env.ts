/**
 * The fault suite's setup: the simulator as a process, a bridge config for workforce directories on a
 * Redis under a private key prefix (the shared test Redis, or a private redis-server), bridge `server`
 * and `worker` processes started on demand, and the test's own view into Redis (store, sync state,
 * queues) to check what survived. `close()` kills every process, then deletes the prefix's keys.
 */
import { Queue } from "bullmq";
import type { RedisConnection } from "../../src/store";
import { hashToken } from "../../src/auth/token";
import type { FaultsInput } from "../../src/simulator/faults-schema";
import { GroupStore, UserStore, createQueueConnection, waitReady } from "../../src/store";
import { SyncStateStore, type SyncStatus } from "../../src/sync/state/sync-state";
import { loadConfig } from "../../src/config/load";
import { directoryQueue, type DirectoryQueue } from "./directory-queue";
import { SyncQueues } from "../../src/sync/admission/queues";
import { IdpClient } from "./idp-client";
import { ProcessSet, startBridgeProcess, startSimProcess, type BridgeProcess, type SimProcess } from "./processes";
import { cleanPrefix, testPrefix, TEST_REDIS_URL } from "./redis";
import { bridgeGroups, bridgeUsers, diffWorkforce } from "./state-diff";

export const PLATFORM_KEY = "fault-platform-key-0001";
const SIM_TOKEN = "fault-sim-token";
const KEY_ENV = "FAULT_PLATFORM_KEY";

/** The SCIM token of a directory. */
export const tokenOf = (dir: string) => `token-${dir}-0001`;

export interface FaultEnvOptions {
  /** Processes started before the environment (e.g. a private redis-server), killed with it. */
  set?: ProcessSet;
  /** Default: the shared test Redis. */
  redisUrl?: string;
  /** Workforce directory ids (default `["wf"]`). */
  directories?: string[];
  /** Merged into every directory's config. */
  directory?: Record<string, unknown>;
  /** Merged into `sync` (defaults: fast retries with a 5 s cap, 50 attempts). */
  sync?: Record<string, unknown>;
  /** Merged into `server`. */
  server?: Record<string, unknown>;
  /** Simulator faults from its start. */
  faults?: FaultsInput;
}

export interface FaultEnv {
  set: ProcessSet;
  sim: SimProcess;
  prefix: string;
  redisUrl: string;
  /** The bridge config every process gets (SCIM_BRIDGE_CONFIG_JSON). */
  config: Record<string, unknown>;
  /** The test's connection: rides out Redis restarts like a worker's. */
  redis: RedisConnection;
  users: UserStore;
  groups: GroupStore;
  state: SyncStateStore;
  /** A directory's view of its queue shard. */
  queue(dir?: string): DirectoryQueue;
  /** Starts a server process (`port` 0: any); the IdP clients follow its URL. */
  startServer(port?: number): Promise<BridgeProcess>;
  startWorker(): Promise<BridgeProcess>;
  /** An IdP client of a directory, on the server started last. */
  idp(dir?: string): IdpClient;
  counts(dir?: string): Promise<Record<SyncStatus, number>>;
  /** Differences between the bridge and the simulator for a directory ([] when equal). */
  diff(dir?: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Builds the environment and starts the simulator (no bridge process yet). */
export async function startFaultEnv(o: FaultEnvOptions = {}): Promise<FaultEnv> {
  const set = o.set ?? new ProcessSet();
  const prefix = testPrefix();
  const redisUrl = o.redisUrl ?? TEST_REDIS_URL;
  try {
    return await build(set, o, prefix, redisUrl);
  } catch (err) {
    await set.killAll(); // nothing a half-built environment started outlives it
    throw err;
  }
}

async function build(set: ProcessSet, o: FaultEnvOptions, prefix: string, redisUrl: string): Promise<FaultEnv> {
  const dirs = o.directories ?? ["wf"];
  const sim = await startSimProcess(set, {
    tenant: { name: "account" },
    apiKeys: [{ name: "bridge", key: PLATFORM_KEY }],
    deployments: [{ id: 1, name: "production" }],
    admin: { header: "x-sim-token", token: SIM_TOKEN },
    faults: o.faults ?? {},
  });
  const config = {
    redis: { url: redisUrl, keyPrefix: prefix },
    server: { host: "127.0.0.1", port: 0, retryAfterSeconds: 1, ...o.server },
    log: { level: "info" },
    metrics: { workerPort: 0 },
    sync: { attempts: 50, backoffMs: 200, maxBackoffMs: 5000, sweepIntervalMs: 500, ...o.sync },
    directories: dirs.map((id) => ({
      id, tokenHashes: [hashToken(tokenOf(id))], target: "workforce",
      platform: { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: KEY_ENV },
      rateLimit: { max: 2000, durationMs: 1000 }, concurrency: 8,
      ...o.directory,
    })),
  };
  const redis = createQueueConnection(redisUrl);
  redis.on("error", () => undefined);
  await waitReady(redis, 10000).catch((err: Error) => { redis.disconnect(); throw err; });
  const queues = new SyncQueues(redis, loadConfig({ env: { REDIS_URL: redisUrl }, overrides: config }));
  let serverUrl: string | undefined;
  const env: FaultEnv = {
    set, sim, prefix, redisUrl, config, redis,
    users: new UserStore(redis, prefix),
    groups: new GroupStore(redis, prefix),
    state: new SyncStateStore(redis, prefix),
    queue: (dir = dirs[0]) => directoryQueue(queues, dir),
    startServer: async (port = 0) => {
      const server = await startBridgeProcess(set, "server", { ...config, server: { ...config.server, port } });
      serverUrl = server.url;
      return server;
    },
    startWorker: () => startBridgeProcess(set, "worker", config, { [KEY_ENV]: PLATFORM_KEY }),
    idp: (dir = dirs[0]) => {
      if (!serverUrl) throw new Error("start a server first");
      return new IdpClient(serverUrl, dir, tokenOf(dir));
    },
    counts: (dir = dirs[0]) => env.state.counts(dir),
    diff: async (dir = dirs[0]) => diffWorkforce(dir, await bridgeUsers(env.users, dir), await bridgeGroups(env.groups, dir), await sim.state()),
    close: async () => {
      await set.killAll();
      const closing = queues.close().catch(() => undefined);
      await Promise.race([closing, new Promise((r) => setTimeout(r, 2000).unref())]);
      if (redis.status === "ready") {
        await cleanPrefix(redis, prefix).catch(() => undefined);
      }
      redis.disconnect();
    },
  };
  return env;
}

/** Polls `fn` every `everyMs` until it returns a truthy value, or throws after `timeoutMs` with `what` and the last value. */
export async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T> | T, everyMs = 200): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A user body with a unique userName. */
export function userBody(userName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName,
    name: { givenName: "Given", familyName: userName.split("@")[0] },
    emails: [{ primary: true, value: userName, type: "work" }],
    active: true,
    ...extra,
  };
}
