/**
 * The worker role: for each directory a BullMQ Worker on its own queue (its concurrency, its shared rate
 * limit, its pause), a platform client, and one outbox dispatcher for all directories. Several processes
 * started with this share the work through Redis. `close()` stops taking work and waits for active jobs.
 */
import { hostname } from "node:os";
import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config, DirectoryConfig } from "../config/schema";
import { AuthError, ScopeError, createPlatformClient, type PlatformClient } from "../platform";
import { DirectoryKeys, GroupStore, SyncStateStore, UserStore, createQueueConnection, waitReady, type SyncKind } from "../store";
import type { ReconcileContext } from "./context";
import { pauseDirectory } from "./directory-control";
import { OutboxDispatcher } from "./dispatcher";
import { ExternalUserUsage } from "./external-user-usage";
import { RECONCILE, RESYNC, queueName, queuePrefix, type ReconcileJobData, type ResyncJobData } from "./jobs";
import { bridgeBackoff, handleFailure } from "./outcome";
import { SyncQueues } from "./queues";
import { reconcile } from "./reconcile";
import { settleResync, startResync } from "./resync";
import { SharedRateLimiter } from "./shared-rate-limiter";
import { endpointLabel, type Metrics } from "../observability/metrics";

export interface SyncRuntime {
  queues: SyncQueues;
  dispatcher: OutboxDispatcher;
  workers: Map<string, Worker>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  env?: NodeJS.ProcessEnv;
  consumer?: string;
  metrics?: Metrics;
}

function platformFor(dir: DirectoryConfig, config: Config, redis: Redis, env: NodeJS.ProcessEnv, logger: Logger, metrics?: Metrics): PlatformClient | string {
  const apiKey = env[dir.platform.apiKeyEnv];
  if (!apiKey) return `environment variable ${dir.platform.apiKeyEnv} (the platform API key of directory ${dir.id}) is not set`;
  try {
    return createPlatformClient({
      baseUrl: dir.platform.baseUrl, allowPlainHttp: dir.platform.allowPlainHttp, apiKey, deploymentId: dir.platform.deploymentId, timeoutMs: dir.platform.timeoutMs,
      maxConnections: dir.platform.maxConnections, memberBatchSize: dir.platform.memberBatchSize, pageSize: dir.platform.pageSize,
      scimPath: dir.platform.scimPath, messageFailureStatuses: [dir.platform.messageFailureStatus],
      limiter: new SharedRateLimiter(redis, `${new DirectoryKeys(config.redis.keyPrefix, dir.id).prefix}s:rate`, dir.rateLimit.max, dir.rateLimit.durationMs),
      retry: { attempts: 2 }, logger: logger.child({ directory: dir.id }),
      onCall: metrics ? ({ method, path, status, durationMs }) => {
        const endpoint = endpointLabel(method, path);
        metrics.platformCalls.inc({ directory: dir.id, endpoint, status: String(status) });
        metrics.platformDuration.observe({ directory: dir.id, endpoint }, durationMs / 1000);
      } : undefined,
    });
  } catch (err) {
    return (err as Error).message;
  }
}

/** Starts the sync workers and the dispatcher for every configured directory. */
export async function startSyncRuntime(config: Config, logger: Logger, opts: RuntimeOptions = {}): Promise<SyncRuntime> {
  const env = opts.env ?? process.env;
  const redis = createQueueConnection(config.redis.url);
  redis.on("error", (err) => logger.debug({ err: { message: err.message } }, "redis connection error"));
  await waitReady(redis, 10000);
  const blocking = redis.duplicate();
  blocking.on("error", () => undefined);
  const prefix = config.redis.keyPrefix;
  const users = new UserStore(redis, prefix);
  const groups = new GroupStore(redis, prefix, config.scim.maxGroupMembers);
  const state = new SyncStateStore(redis, prefix);
  const usage = new ExternalUserUsage(redis, prefix);
  const queues = new SyncQueues(redis, config);
  const workers = new Map<string, Worker>();
  const clients: PlatformClient[] = [];

  for (const dir of config.directories) {
    const log = logger.child({ directory: dir.id });
    const queue = queues.queue(dir.id);
    await queue.setGlobalConcurrency(dir.concurrency);
    const pause = (reason: string) => {
      log.error({ reason }, "directory paused");
      return pauseDirectory(queue, state, dir.id, reason);
    };
    const platform = platformFor(dir, config, redis, env, logger, opts.metrics);
    if (typeof platform === "string") {
      await state.setMeta(dir.id, { keyStatus: `missing: ${platform}`, keyCheckedAt: new Date().toISOString() });
      await pause(platform);
      continue;
    }
    clients.push(platform);
    const ctx: ReconcileContext = {
      dir, users, groups, state, platform, usage, logger: log,
      enqueue: (kind, id) => queues.enqueue(dir.id, kind, id),
    };
    const processor = async (job: Job, token?: string) => {
      if (job.name === RESYNC) {
        const started = await startResync({ ...ctx, redis, keyPrefix: prefix }, (job.data as ResyncJobData).requestedBy);
        return started ? "started" : "already running";
      }
      const { kind, id } = job.data as ReconcileJobData;
      const endTimer = opts.metrics?.syncJobDuration.startTimer({ directory: dir.id, kind });
      try {
        const outcome = await reconcile(ctx, kind, id);
        await settleResync(redis, prefix, dir.id, kind, id, outcome);
        if (outcome !== "unchanged") await state.setMeta(dir.id, { lastSyncAt: new Date().toISOString() });
        opts.metrics?.syncJobs.inc({ directory: dir.id, kind, outcome });
        endTimer?.();
        return outcome;
      } catch (err) {
        opts.metrics?.syncJobs.inc({ directory: dir.id, kind, outcome: "error" });
        endTimer?.();
        return handleFailure(err, job, token, kind as SyncKind, id, {
          state, queue, directoryId: dir.id, pause,
          onFailed: (k, i) => settleResync(redis, prefix, dir.id, k, i, "failed"),
        });
      }
    };
    const worker = new Worker(queueName(dir.id), processor, {
      connection: redis, prefix: queuePrefix(prefix), concurrency: dir.concurrency, lockDuration: config.sync.lockDurationMs,
      // a dead worker's job is found by the stalled check, which runs this often (BullMQ's default is a fixed 30 s)
      stalledInterval: config.sync.lockDurationMs,
      // a job whose worker died is handed on; after this many deaths BullMQ fails it (re-queued below)
      maxStalledCount: config.sync.maxStalledCount,
      settings: { backoffStrategy: (attemptsMade: number) => bridgeBackoff(attemptsMade, config.sync.backoffMs, config.sync.maxBackoffMs) },
    });
    worker.on("error", (err) => log.warn({ err: { message: err.message } }, "worker error"));
    worker.on("failed", (job, err) => {
      if (!job || job.name !== RECONCILE) return;
      log.info({ kind: job.data.kind, id: job.data.id, attempts: job.attemptsMade, err: { message: err.message } }, "reconcile failed");
      // a job whose workers kept dying is failed by BullMQ on its next pick-up ("job stalled more than
      // allowable limit") without running handleFailure: the platform refused nothing, so the resource is
      // queued again rather than left pending with no job
      if (/stalled more than allowable limit/.test(err.message)) {
        log.warn({ kind: job.data.kind, id: job.data.id }, "reconcile failed by stalling; queued again");
        queues.enqueue(dir.id, job.data.kind, job.data.id).catch((e: Error) => log.warn({ err: { message: e.message } }, "could not re-queue a stalled reconcile"));
      }
    });
    workers.set(dir.id, worker);
    if (dir.resyncSchedule) {
      await queue.upsertJobScheduler("scheduled-resync", { pattern: dir.resyncSchedule }, { name: RESYNC, data: { requestedBy: "schedule" } });
    }
    // a key that does not work stops the directory now rather than item by item (and /readyz says so)
    const checked = (keyStatus: string) => state.setMeta(dir.id, { keyStatus, keyCheckedAt: new Date().toISOString() });
    platform.verifyKey().then(() => checked("ok"), async (err: Error) => {
      if (err instanceof AuthError) {
        await checked(`401: ${err.message}`);
        await pause(`platform answered 401 (credential missing, malformed or expired): ${err.message}`);
      } else if (err instanceof ScopeError) {
        await checked(`403: ${err.message}`);
        await pause(`key not scoped to deployment ${dir.platform.deploymentId}: ${err.message}`);
      } else {
        await checked(`unverified: ${err.message}`);
        log.warn({ err: { message: err.message } }, "could not verify the platform key at start");
      }
    }).catch(() => undefined);
  }

  const dispatcher = new OutboxDispatcher(redis, blocking, queues, {
    keyPrefix: prefix, directoryIds: config.directories.map((d) => d.id),
    consumer: opts.consumer ?? `${hostname()}-${process.pid}`, sweepIntervalMs: config.sync.sweepIntervalMs,
    claimIdleMs: Math.max(config.sync.sweepIntervalMs, 10000),
  }, logger);
  await dispatcher.init();
  dispatcher.start();

  return {
    queues, dispatcher, workers,
    close: async () => {
      await dispatcher.stop();
      await Promise.all([...workers.values()].map((w) => w.close()));
      await queues.close();
      await Promise.all(clients.map((c) => c.close()));
      blocking.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
