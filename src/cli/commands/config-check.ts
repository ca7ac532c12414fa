/**
 * `scim-bridge config check [--online]`: beyond the schema (which `loadConfig` has already applied, strict
 * keys and token-hash collisions included), what the configuration needs from this machine and from the
 * platform. Offline: every environment variable a directory names is set, and every platform URL is
 * https (plain http only on loopback or with `platform.allowPlainHttp`). Online: each directory's key
 * works and covers its deployment (`GET /v1/deployments`), and Redis is set up as the roles require at
 * start (the database of `redis.url` exists, `maxmemory-policy` is `noeviction`: src/store/redis-setup.ts).
 */
import type { Config, DirectoryConfig } from "../../config/schema";
import { AuthError, ScopeError, createPlatformClient, parseBaseUrl } from "../../platform";
import { inspectRedisSetup, redisTarget } from "../../store";

/** What the check found: problems (each names the key and the fix) and what was verified. */
export interface ConfigCheckResult {
  problems: string[];
  verified: string[];
}

const where = (i: number, d: DirectoryConfig, key: string) => `directories.${i}.${key} (directory "${d.id}")`;

/** Checks that need no network: environment variables and URL schemes. */
export function checkOffline(config: Config, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  config.directories.forEach((d, i) => {
    if (!env[d.platform.apiKeyEnv]) {
      problems.push(`${where(i, d, "platform.apiKeyEnv")}: environment variable ${d.platform.apiKeyEnv} is not set; the worker role needs it to reach the platform. Fix: export ${d.platform.apiKeyEnv}=<platform API key>`);
    }
    try {
      parseBaseUrl(d.platform.baseUrl, d.platform.allowPlainHttp);
    } catch (err) {
      problems.push(`${where(i, d, "platform.baseUrl")}: ${(err as Error).message}`);
    }
  });
  return problems;
}

/** One directory's online check: what was verified, or the problem (undefined: nothing to check online). */
async function checkKey(d: DirectoryConfig, i: number, env: NodeJS.ProcessEnv): Promise<{ verified?: string; problem?: string } | undefined> {
  const apiKey = env[d.platform.apiKeyEnv];
  if (!apiKey) return undefined; // reported offline
  const { apiKeyEnv, deploymentId, baseUrl, allowPlainHttp, timeoutMs } = d.platform;
  let client;
  try {
    client = createPlatformClient({ baseUrl, allowPlainHttp, apiKey, deploymentId, timeoutMs });
  } catch {
    return undefined; // a URL the client refuses is reported offline
  }
  try {
    const deployment = await client.verifyKey();
    return { verified: `directory "${d.id}": the key in ${apiKeyEnv} works and covers deployment ${deploymentId} (${JSON.stringify(deployment.name)}) at ${baseUrl}` };
  } catch (err) {
    const what = err instanceof AuthError ? `the platform at ${baseUrl} refuses the key in ${apiKeyEnv} (401)`
      : err instanceof ScopeError ? `the key in ${apiKeyEnv} does not cover deployment ${deploymentId} at ${baseUrl}`
        : `could not verify the key in ${apiKeyEnv} at ${baseUrl}`;
    return { problem: `${where(i, d, "platform")}: ${what}: ${(err as Error).message}` };
  } finally {
    await client.close();
  }
}

/** Checks the configured Redis as the roles do at start. */
async function checkRedis(config: Config): Promise<ConfigCheckResult> {
  try {
    const report = await inspectRedisSetup(config.redis);
    return { problems: report.problems, verified: report.verified.map((v) => `${v} (${redisTarget(config.redis)})`) };
  } catch (err) {
    return { problems: [`redis.url (REDIS_URL): could not check Redis: ${(err as Error).message}`], verified: [] };
  }
}

/**
 * Asks the platform, for each directory whose key is set and URL usable, whether the key covers its
 * deployment (in config order), and Redis whether it is set up as the bridge needs.
 */
export async function checkOnline(config: Config, env: NodeJS.ProcessEnv): Promise<ConfigCheckResult> {
  const [redis, ...results] = await Promise.all([checkRedis(config), ...config.directories.map((d, i) => checkKey(d, i, env))]) as
    [ConfigCheckResult, ...Array<Awaited<ReturnType<typeof checkKey>>>];
  return {
    problems: [...redis.problems, ...results.flatMap((r) => (r?.problem ? [r.problem] : []))],
    verified: [...redis.verified, ...results.flatMap((r) => (r?.verified ? [r.verified] : []))],
  };
}

/** The whole command: prints what was verified and the problems; resolves with the exit code (0, or 2 on a problem). */
export async function configCheckCommand(
  config: Config, env: NodeJS.ProcessEnv, online: boolean, out: (s: string) => void, err: (s: string) => void,
): Promise<number> {
  const problems = checkOffline(config, env);
  const verified = online ? await checkOnline(config, env) : undefined;
  for (const v of verified?.verified ?? []) out(`ok: ${v}`);
  problems.push(...(verified?.problems ?? []));
  if (problems.length) {
    err(`configuration has ${problems.length} problem(s):\n${problems.map((p) => `- ${p}`).join("\n")}`);
    return 2;
  }
  const dirs = config.directories.map((d) => `${d.id}:${d.target}`).join(", ") || "none";
  out(`configuration OK: ${config.directories.length} directories (${dirs}), Redis ${config.redis.url.replace(/\/\/[^@]*@/, "//***@")}, port ${config.server.port}${online ? "; Redis set-up and every platform key verified" : ""}`);
  return 0;
}
