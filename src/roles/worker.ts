/**
 * The worker role: for each directory a BullMQ Worker on its own queue (its concurrency, its shared rate
 * limit, its pause) running the directory's job processor, and one outbox dispatcher for all directories.
 * Several processes started with this share the work through Redis. `close()` stops taking work and waits
 * for active jobs.
 */
import { hostname } from "node:os";
import { Worker } from "bullmq";
import type { Logger } from "pino";
import type { Config } from "../config/schema";
import type { PlatformClient } from "../platform";
import { GroupStore, NameClaims, Ownership, SyncStateStore, UserStore, createQueueConnection, waitReady } from "../store";
import type { Metrics } from "../observability/metrics";
import type { ReconcileContext } from "../sync/context";
import { pauseDirectory } from "../sync/directory-control";
import { createDirectoryPlatform } from "../sync/directory-platform";
import { OutboxDispatcher } from "../sync/dispatcher";
import { ExternalUserUsage } from "../sync/external-user-usage";
import { RECONCILE, RESYNC, queueName, queuePrefix } from "../sync/jobs";
import { KeyMonitor } from "../sync/key-check";
import { Revival } from "../sync/revival";
import { bridgeBackoff } from "../sync/outcome";
import { createProcessor } from "../sync/processor";
import { SyncQueues } from "../sync/queues";

export interface SyncRuntime {
  queues: SyncQueues;
  dispatcher: OutboxDispatcher;
  workers: Map<string, Worker>;
  /** The worker role's readiness: Redis connected and every directory's worker running (not closing). */
  canTakeJobs(): boolean;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  env?: NodeJS.ProcessEnv;
  consumer?: string;
  metrics?: Metrics;
}

/** Starts the sync workers and the dispatcher for every configured directory. */
export async function startSyncRuntime(config: Config, logger: Logger, opts: RuntimeOptions = {}): Promise<SyncRuntime> {
  const env = opts.env ?? process.env;
  const redis = createQueueConnection(config.redis);
  redis.on("error", (err) => logger.debug({ err: { message: err.message } }, "redis connection error"));
  await waitReady(redis, 10000).catch((err: Error) => { redis.disconnect(); throw err; });
  // the dispatcher's blocking XREADGROUP gets a connection of its own
  const blocking = createQueueConnection(config.redis);
  blocking.on("error", () => undefined);
  const prefix = config.redis.keyPrefix;
  const users = new UserStore(redis, prefix);
  const groups = new GroupStore(redis, prefix, config.scim.maxGroupMembers);
  const state = new SyncStateStore(redis, prefix);
  const usage = new ExternalUserUsage(redis, prefix);
  const claims = new NameClaims(redis, prefix);
  const ownership = new Ownership(redis, prefix);
  const queues = new SyncQueues(redis, config);
  const workers = new Map<string, Worker>();
  const clients: PlatformClient[] = [];
  const monitors: KeyMonitor[] = [];
  const revivals: Revival[] = [];
  let closing = false;

  for (const dir of config.directories) {
    const log = logger.child({ directory: dir.id });
    const queue = queues.queue(dir.id);
    await queue.setGlobalConcurrency(dir.concurrency);
    const pause = (reason: string) => {
      log.error({ reason }, "directory paused");
      return pauseDirectory(queue, state, dir.id, reason);
    };
    let monitor: KeyMonitor | undefined;
    const s = config.sync;
    const revival = new Revival(redis, prefix, dir.id, state, (kind, id) => queues.enqueue(dir.id, kind, id),
      { baseMs: s.reviveBaseMs, maxMs: s.reviveMaxMs, outageGapMs: s.outageGapMs, tickMs: s.reviveTickMs }, log);
    const platform = createDirectoryPlatform(dir, config, redis, env, logger, opts.metrics, (status) => {
      if (status >= 200 && status < 300) monitor?.succeeded();
      revival.onCall(status);
    });
    if (typeof platform === "string") {
      await state.setMeta(dir.id, { keyStatus: `missing: ${platform}`, keyCheckedAt: new Date().toISOString() });
      await pause(platform);
      continue;
    }
    clients.push(platform);
    const ctx: ReconcileContext = {
      dir, users, groups, state, platform, usage, claims, ownership, logger: log,
      enqueue: (kind, id) => queues.enqueue(dir.id, kind, id),
    };
    const processor = createProcessor({ ctx, redis, keyPrefix: prefix, queue, pause, metrics: opts.metrics, revival });
    revivals.push(revival);
    revival.start();
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
    monitor = new KeyMonitor(platform, dir, state, pause, log, config.sync.keyCheckIntervalMs);
    monitors.push(monitor);
    monitor.start();
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
    canTakeJobs: () => !closing && redis.status === "ready" && [...workers.values()].every((w) => w.isRunning()),
    close: async () => {
      closing = true;
      for (const m of monitors) m.stop();
      for (const r of revivals) r.stop();
      await dispatcher.stop();
      await Promise.all([...workers.values()].map((w) => w.close()));
      await queues.close();
      await Promise.all(clients.map((c) => c.close()));
      blocking.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
