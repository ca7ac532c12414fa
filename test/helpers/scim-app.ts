/**
 * Builds the SCIM app on the real Redis (database TEST_SCIM_REDIS_URL) with a private key prefix and two
 * directories ("acme", "globex"), each with its own token. `close()` deletes the prefix's keys and disconnects.
 */
import type { Express } from "express";
import { loadConfig } from "../../src/config/load";
import type { Config } from "../../src/config/schema";
import { createScimApp } from "../../src/scim/app";
import { hashToken } from "../../src/auth/token";
import { GroupStore, largeGroups, UserStore, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { createLogger } from "../../src/observability/logger";
import { cleanPrefix, testPrefix, TEST_REDIS_ENV, TEST_SCIM_REDIS_URL } from "./redis";

export const TOKENS = { acme: "acme-token-1", globex: "globex-token-1" } as const;

export interface TestScim {
  app: Express;
  config: Config;
  redis: RedisConnection;
  prefix: string;
  users: UserStore;
  groups: GroupStore;
  /** Authorization header for a directory. */
  auth(dir?: keyof typeof TOKENS): { Authorization: string };
  close(): Promise<void>;
}

function dirConfig(id: string, token: string) {
  return { id, tokenHashes: [hashToken(token)], target: "workforce", platform: { baseUrl: "http://127.0.0.1:1/api", deploymentId: 1, apiKeyEnv: "UNUSED_KEY" } };
}

/** Starts a test SCIM app; `overrides` merge into the config, `dirs` into each directory's config (`{ acme: { strict: true } }`). */
export async function startScim(overrides: Record<string, unknown> = {}, dirs: Partial<Record<keyof typeof TOKENS, Record<string, unknown>>> = {}): Promise<TestScim> {
  const prefix = testPrefix();
  const config = loadConfig({
    env: { ...TEST_REDIS_ENV, REDIS_URL: TEST_SCIM_REDIS_URL },
    overrides: {
      redis: { keyPrefix: prefix },
      server: { publicBaseUrl: "https://bridge.example.com" },
      log: { level: "silent" },
      directories: [{ ...dirConfig("acme", TOKENS.acme), ...dirs.acme }, { ...dirConfig("globex", TOKENS.globex), ...dirs.globex }],
      ...overrides,
    },
  });
  const redis = createStoreConnection(config.redis);
  await waitReady(redis);
  const users = new UserStore(redis, prefix);
  const groups = new GroupStore(redis, prefix, config.scim.maxGroupMembers, config.redis.writeSettleMs, undefined, largeGroups(config));
  const app = createScimApp({ config, users, groups, logger: createLogger("silent") });
  return {
    app, config, redis, prefix, users, groups,
    auth: (dir = "acme") => ({ Authorization: `Bearer ${TOKENS[dir]}` }),
    close: async () => {
      await groups.memberOf.idle(); // a background reverse-index drain must not write after the clean-up
      await cleanPrefix(redis, prefix);
      redis.disconnect();
    },
  };
}
