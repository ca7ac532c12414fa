/**
 * An end-to-end sync environment for integration tests: the platform simulator over HTTP (port 0), the
 * SCIM app (supertest), and the sync runtime (BullMQ workers + dispatcher) in this process, all on the
 * real Redis under a private key prefix. Directories: `wf` (workforce) and `em` (embed, tenant
 * "em-tenant"), each with its own token; both use the simulator key in env TEST_PLATFORM_KEY.
 * `directories` adds more (workforce unless they say otherwise, token `<id>-token-1`), e.g. a second
 * workforce directory with its own platform key to show one directory's trouble never holds another.
 */
import type { Express } from "express";
import request from "supertest";
import { loadConfig } from "../../src/config/load";
import type { Config } from "../../src/config/schema";
import { createScimApp } from "../../src/scim/app";
import { hashToken } from "../../src/auth/token";
import { createLogger } from "../../src/observability/logger";
import { GroupStore, largeGroups, ReplicaAck, UserStore, createQueueConnection, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { SyncStateStore } from "../../src/sync/state/sync-state";
import { startSimulator, type RunningSimulator } from "../../src/simulator/start-simulator";
import { startSyncRuntime, type SyncRuntime } from "../../src/roles/worker";
import { SyncQueues } from "../../src/sync/admission/queues";
import { cleanPrefix, scanKeys, testPrefix, unlinkKeys, TEST_REDIS_ENV } from "./redis";

export const PLATFORM_KEY = "test-platform-key-0001";
export const SIM_TOKEN = "test-sim-token";

export interface SyncEnvOptions {
  /** Extra directory settings merged into `wf` / `em` (`platform` is merged key by key). */
  wf?: Record<string, unknown>;
  em?: Record<string, unknown>;
  /** More directories: `{ id, ... }`, workforce on the simulator unless overridden (`platform` merged). */
  directories?: Array<{ id: string } & Record<string, unknown>>;
  /** Simulator config overrides. */
  sim?: Record<string, unknown>;
  /** Config overrides (scim …; `sync` is merged over the harness's fast retry settings). */
  config?: Record<string, unknown>;
  /** Start the sync runtime (default true). */
  runtime?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Environment that points the bridge at Redis (default: the test Redis, TEST_REDIS_ENV). */
  redisEnv?: Record<string, string>;
}

export interface SyncEnv {
  sim: RunningSimulator;
  app: Express;
  config: Config;
  prefix: string;
  redis: RedisConnection;
  users: UserStore;
  groups: GroupStore;
  state: SyncStateStore;
  runtime?: SyncRuntime;
  /** Producer-side queues on the harness's own connection (usable while no runtime runs). */
  queues: SyncQueues;
  scim(dir: string): { post(path: string, body: object): request.Test; get(path: string): request.Test; patch(path: string, body: object): request.Test; put(path: string, body: object): request.Test; delete(path: string): request.Test };
  /** The simulator's state (/_sim/state). */
  simState(): Promise<SimStateView>;
  startRuntime(env?: NodeJS.ProcessEnv): Promise<SyncRuntime>;
  close(): Promise<void>;
}

export interface SimStateView {
  counters: {
    total: { reads: number; writes: number };
    endpoints: Record<string, { reads: number; writes: number }>;
    faults: { rateLimited: number; errors: number; dropped: number; outage: number };
  };
  scim: { users: Array<Record<string, unknown> & { id: string; userName: string; active?: boolean; externalId?: string }>; groups: Array<{ id: string; displayName: string; members: Array<{ value: string }> }> };
  tenants: Record<string, { externalUsers: Record<string, { externalId: string; email?: string; userProfile?: Record<string, unknown>; groups: string[]; userAttributes: Record<string, unknown> }>; groups: Array<{ id: number; name: string }>; attributeDefinitions: Array<{ id: number; name: string; type: string }> }>;
  externalUserCount: number;
}

import { waitFor } from "./wait-for";
import { directoryQueue } from "./directory-queue";

export { waitFor };

/**
 * Waits until a directory has nothing left to do: its outbox is empty (every entry enqueued), its queue
 * holds no waiting, active, delayed or prioritized job, and its admission holds nothing (the worker's
 * "completed" handler has freed the last job's slot, so no write of that job is still on its way), then has
 * the worker write its buffered per-minute counters.
 */
export async function waitIdle(e: SyncEnv, dir: "wf" | "em", timeoutMs = 15000): Promise<void> {
  const queue = directoryQueue(e.runtime!.queues, dir);
  await waitFor(async () => {
    if ((await e.redis.xlen(e.users.keys(dir).outbox)) > 0) return false;
    const counts = await queue.getJobCounts("wait", "active", "delayed", "prioritized");
    if (!Object.values(counts).every((n) => n === 0)) return false;
    const { backlog, admitted } = await e.runtime!.queues.admission.depth(dir);
    return backlog === 0 && admitted === 0;
  }, timeoutMs, `directory ${dir} idle`);
  // the last jobs' platform calls and sync lag, which the worker writes to the status page's counters once a second
  await e.runtime!.flushCounters();
}

export const TOKENS = { wf: "wf-token-1", em: "em-token-1" };

/** The SCIM bearer token of a directory of the harness. */
export function tokenOf(dir: string): string {
  return (TOKENS as Record<string, string>)[dir] ?? `${dir}-token-1`;
}

type Settings = Record<string, unknown> | undefined;
/** `platform` merged key by key; a `baseUrl` given as a function is called with the simulator's (another spelling of it). */
const platformOf = (base: Record<string, unknown>, over: Settings) => {
  const p: Record<string, unknown> = { ...base, ...(over?.platform as Record<string, unknown> | undefined) };
  if (typeof p.baseUrl === "function") p.baseUrl = (p.baseUrl as (sim: string) => string)(base.baseUrl as string);
  return p;
};

/** Starts simulator, SCIM app and (by default) the sync runtime. */
export async function startSyncEnv(o: SyncEnvOptions = {}): Promise<SyncEnv> {
  const prefix = testPrefix();
  const sim = await startSimulator({
    port: 0, host: "127.0.0.1",
    config: {
      tenant: { name: "account", useCreatorMode: true },
      apiKeys: [{ name: "bridge", key: PLATFORM_KEY }],
      deployments: [{ id: 1, name: "production" }],
      admin: { header: "x-sim-token", token: SIM_TOKEN },
      faults: { rateLimit: null },
      ...o.sim,
    },
  });
  const platform = { baseUrl: sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" };
  const config = loadConfig({
    env: o.redisEnv ?? TEST_REDIS_ENV,
    overrides: {
      redis: { keyPrefix: prefix },
      server: { publicBaseUrl: "https://bridge.example.com" },
      log: { level: "silent" },
      ...o.config,
      sync: { backoffMs: 100, sweepIntervalMs: 500, attempts: 8, ...(o.config?.sync as Settings) },
      directories: [
        { id: "wf", tokenHashes: [hashToken(TOKENS.wf)], target: "workforce", rateLimit: { max: 1000, durationMs: 1000 }, ...o.wf, platform: platformOf(platform, o.wf) },
        {
          id: "em", tokenHashes: [hashToken(TOKENS.em)], target: "embed", rateLimit: { max: 1000, durationMs: 1000 },
          embed: { tenantName: "em-tenant", attributeMapping: [
            { scim: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", name: "department", type: "string" },
            { scim: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber", name: "employeeNumber", type: "number" },
          ] },
          ...o.em,
          platform: platformOf(platform, o.em),
        },
        ...(o.directories ?? []).map((d) => ({
          tokenHashes: [hashToken(tokenOf(d.id))], target: "workforce", rateLimit: { max: 1000, durationMs: 1000 }, ...d, platform: platformOf(platform, d),
        })),
      ],
    },
  });
  const redis = createStoreConnection(config.redis);
  // errors are the commands' to report; without a listener ioredis prints each reconnect attempt
  redis.on("error", () => undefined);
  await waitReady(redis);
  const replicaAck = await ReplicaAck.open(config.redis);
  const users = new UserStore(redis, prefix, config.redis.writeSettleMs, replicaAck);
  const groups = new GroupStore(redis, prefix, config.scim.maxGroupMembers, config.redis.writeSettleMs, replicaAck, largeGroups(config));
  const state = new SyncStateStore(redis, prefix);
  const logger = createLogger("silent");
  const app = createScimApp({ config, users, groups, logger });
  const queueConnection = createQueueConnection(config.redis);
  queueConnection.on("error", () => undefined);
  const env: SyncEnv = {
    sim, app, config, prefix, redis, users, groups, state,
    queues: new SyncQueues(queueConnection, config),
    scim: (dir) => {
      const auth = { Authorization: `Bearer ${tokenOf(dir)}` };
      const base = `/scim/v2/${dir}`;
      return {
        post: (p, body) => request(app).post(`${base}${p}`).set(auth).send(body),
        get: (p) => request(app).get(`${base}${p}`).set(auth),
        patch: (p, body) => request(app).patch(`${base}${p}`).set(auth).send(body),
        put: (p, body) => request(app).put(`${base}${p}`).set(auth).send(body),
        delete: (p) => request(app).delete(`${base}${p}`).set(auth),
      };
    },
    simState: async () => {
      const res = await fetch(`${sim.url}/_sim/state`, { headers: { "x-sim-token": SIM_TOKEN } });
      return (await res.json()) as SimStateView;
    },
    startRuntime: async (runtimeEnv) => {
      env.runtime = await startSyncRuntime(config, logger, { env: runtimeEnv ?? { TEST_PLATFORM_KEY: PLATFORM_KEY, ...o.env } });
      return env.runtime;
    },
    close: async () => {
      try {
        await env.runtime?.close();
        await env.queues.close();
        await sim.close();
        await cleanPrefix(redis, prefix);
        await unlinkKeys(redis, await scanKeys(redis, `${prefix}:acct:*`));
      } finally {
        // every connection closes, also when a step above failed (a Redis that failed over or is gone)
        queueConnection.disconnect();
        redis.disconnect();
        await replicaAck?.close();
      }
    },
  };
  if (o.runtime !== false) await env.startRuntime(o.env ? { TEST_PLATFORM_KEY: PLATFORM_KEY, ...o.env } : undefined);
  return env;
}
