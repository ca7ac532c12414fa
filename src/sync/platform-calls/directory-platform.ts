/**
 * The platform client of one directory, built from its config: its API key from the environment variable
 * the directory names, its share of the Redis rate limit, its connection cap (its sockets come from the
 * process's pool of the platform origin when given one), and metrics per call. A directory that cannot get
 * a client (no key, a plain-http URL without the opt-in) gets the reason instead.
 */
import type { RedisConnection } from "../../store/connection";
import type { Logger } from "pino";
import type { Config, DirectoryConfig } from "../../config/schema";
import { createPlatformClient, type PlatformClient, type PlatformPools } from "../../platform";
import { DirectoryKeys, platformAccountRateKey } from "../../store";
import { MinuteCounters } from "../../activity/minute-counters";
import { SyncStateKeys } from "../state/sync-state-keys";
import { endpointLabel, type Metrics } from "../../observability/metrics";
import { LimiterChain, SharedRateLimiter } from "./shared-rate-limiter";
import { missingKeyReason } from "../control/pause-reason";

/** The one throttle of a directory's calls: its shared window, and its platform account's when configured. */
function directoryLimiter(dir: DirectoryConfig, config: Config, redis: RedisConnection): SharedRateLimiter | LimiterChain {
  const own = new SharedRateLimiter(redis, new SyncStateKeys(config.redis.keyPrefix, dir.id).rateWindow, dir.rateLimit.max, dir.rateLimit.durationMs);
  const account = dir.platform.accountRateLimit;
  if (!account) return own;
  return new LimiterChain([own, new SharedRateLimiter(redis, platformAccountRateKey(config.redis.keyPrefix, dir.platform.baseUrl), account.max, account.durationMs)]);
}

/** A client for `dir`, or the reason there is none. */
export function createDirectoryPlatform(
  dir: DirectoryConfig, config: Config, redis: RedisConnection, env: NodeJS.ProcessEnv, logger: Logger, metrics?: Metrics,
  /** Told the status of every platform call (platform health: a 2xx proves the key works). */
  onStatus?: (status: number) => void,
  /** The process's connection pools, one per platform origin (none: the client has a pool of its own). */
  pools?: PlatformPools,
  /** The status page's per-minute series (the worker passes its buffered one). */
  counters = new MinuteCounters(redis, config.redis.keyPrefix),
): PlatformClient | string {
  const apiKey = env[dir.platform.apiKeyEnv];
  if (!apiKey) return missingKeyReason(dir.platform.apiKeyEnv, dir.id);
  try {
    return createPlatformClient({
      baseUrl: dir.platform.baseUrl, allowPlainHttp: dir.platform.allowPlainHttp, apiKey, deploymentId: dir.platform.deploymentId, timeoutMs: dir.platform.timeoutMs,
      maxConnections: dir.platform.maxConnections, pools, memberBatchSize: dir.platform.memberBatchSize, pageSize: dir.platform.pageSize, scimPageSize: dir.platform.scimPageSize,
      scimPath: dir.platform.scimPath, messageFailureStatuses: [dir.platform.messageFailureStatus],
      limiter: directoryLimiter(dir, config, redis),
      logger: logger.child({ directory: dir.id }),
      onCall: ({ method, path, status, durationMs }) => {
        onStatus?.(status);
        // the status page's charts (the resource's activity trail is told by the processor's view of the client)
        counters.add(dir.id, "calls").catch(() => undefined);
        if (status === 0 || status >= 400) counters.add(dir.id, "callFailures").catch(() => undefined);
        if (!metrics) return;
        const endpoint = endpointLabel(method, path);
        metrics.platformCalls.inc({ directory: dir.id, endpoint, status: String(status) });
        metrics.platformDuration.observe({ directory: dir.id, endpoint }, durationMs / 1000);
      },
    });
  } catch (err) {
    return (err as Error).message;
  }
}
