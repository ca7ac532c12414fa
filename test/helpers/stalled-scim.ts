/**
 * The SCIM app on a private redis-server whose store writes can be stalled: the fault tests of a write
 * whose Redis command times out, or whose answer is lost, stop redis-server (SIGSTOP, by PID) right before
 * one store script is sent and let it run again when the event they wait for has happened.
 */
import type { Express } from "express";
import { Redis } from "ioredis";
import { hashToken } from "../../src/auth/token";
import { loadConfig } from "../../src/config/load";
import { createLogger } from "../../src/observability/logger";
import { createScimApp } from "../../src/scim/app";
import { GroupStore, UserStore, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { RedisServerProcess, type ProcessSet } from "./processes";

export interface StalledScim {
  redisServer: RedisServerProcess;
  /** The store's connection, whose scripts `stopBeforeNext` intercepts. */
  store: RedisConnection;
  /** A connection of the test's own, for checking what Redis holds. */
  check: Redis;
  users: UserStore;
  app: Express;
}

/** Starts a private redis-server and a SCIM app for directory "acme" (bearer `token`) on it. */
export async function startStalledScim(set: ProcessSet, opts: { keyPrefix: string; token: string; commandTimeoutMs: number; writeSettleMs: number }): Promise<StalledScim> {
  const redisServer = await RedisServerProcess.start(set);
  const config = loadConfig({
    env: { REDIS_URL: redisServer.url },
    overrides: {
      redis: { keyPrefix: opts.keyPrefix, commandTimeoutMs: opts.commandTimeoutMs, writeSettleMs: opts.writeSettleMs },
      server: { publicBaseUrl: "https://bridge.example.com", retryAfterSeconds: 1 },
      log: { level: "silent" },
      directories: [{ id: "acme", tokenHashes: [hashToken(opts.token)], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } }],
    },
  });
  const store = createStoreConnection(config.redis.url, config.redis.commandTimeoutMs);
  store.on("error", () => undefined);
  await waitReady(store);
  const check = new Redis(redisServer.url);
  const users = new UserStore(store, opts.keyPrefix, config.redis.writeSettleMs);
  const groups = new GroupStore(store, opts.keyPrefix, config.scim.maxGroupMembers, config.redis.writeSettleMs);
  const app = createScimApp({ config, users, groups, logger: createLogger("silent") });
  return { redisServer, store, check, users, app };
}

/**
 * The next call of the store's `script` stops redis-server just before the script is sent. Resolves with
 * the stopped server's PID once it is stopped; the caller SIGCONTs it (or kills it) when it is time.
 */
export function stopBeforeNext(s: StalledScim, script: "writeUser" | "deleteUser" | "writeGroup"): Promise<number> {
  const target = s.store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const original = target[script];
  return new Promise<number>((stopped) => {
    target[script] = function (this: unknown, ...args: unknown[]) {
      target[script] = original;
      const pid = s.redisServer.proc!.pid!;
      process.kill(pid, "SIGSTOP");
      stopped(pid);
      return original.apply(this, args);
    };
  });
}
