/**
 * The worker role: one BullMQ Worker per queue shard (src/sync/admission/shard-worker.ts) running every directory's
 * jobs through that directory's processor, and one outbox dispatcher for all directories. The Redis
 * connections of a process do not grow with the directories: one shared connection, the dispatcher's
 * idle wait on the outbox signal, and one blocking connection per shard Worker. Nor do its other
 * per-process costs: one platform connection pool per origin (src/platform/platform-pools.ts; each
 * directory keeps its own connection cap), one timer for every directory's key checks and one for their revivals
 * (src/sync/directory-rounds.ts). Directories are registered (a processor in
 * a map); `addDirectory` / `removeDirectory` do that at run time without a new Worker. Several processes
 * started with this share the work through Redis; serving one directory is src/roles/worker-directories.ts.
 * `close()` stops taking work and waits for active jobs.
 * The directory registry (src/directories/registry.ts) tells the runtime when a directory is created,
 * changed, disabled or deleted at runtime: `addDirectory` / `removeDirectory` are all the runtime does
 * about it (`followRegistry`). A disabled directory being deleted with `platform=deprovision` is served
 * for that run only (src/sync/deleting/deleting.ts): an empty desired state, no outbox, no scheduled resync.
 */
import { hostname } from "node:os";
import type { Worker } from "bullmq";
import type { Logger } from "pino";
import type { Config, DirectoryConfig } from "../config/schema";
import { PlatformPools, type PlatformClient } from "../platform";
import { isServed, startRegistry, type DirectoryRegistry } from "../directories/registry";
import { GroupStore, UserStore, closeConnection, coalesceWrites, createQueueConnection, waitReady, assertRedisSetup } from "../store";
import type { RedisConnection } from "../store/connection";
import { MinuteCounters } from "../activity/minute-counters";
import { SyncStateStore } from "../sync/state/sync-state";
import { ActivityStore } from "../activity/activity-store";
import { NameClaims } from "../sync/ownership/name-claims";
import { Ownership } from "../sync/ownership/ownership-store";
import type { Metrics } from "../observability/metrics";
import { purgeDeleted } from "../sync/deleting/deleting";
import { ADVERTISE_MS, KeyVarStore } from "../sync/control/key-var-store";
import { DirectoryRounds } from "../sync/directory-rounds";
import { startChartSampler } from "../sync/waiting/chart-sampler";
import { OutboxDispatcher } from "../sync/admission/dispatcher";
import { ExternalUserUsage } from "../sync/ownership/external-user-usage";
import type { KeyMonitor } from "../sync/control/key-check";
import type { Revival } from "../sync/admission/revival";
import { SyncQueues } from "../sync/admission/queues";
import { startShardWorkers, type JobProcessor } from "../sync/admission/shard-worker";
import { inLanes } from "../sync/lanes";
import { periodic, type Periodic } from "../sync/periodic";
import { directoryServing, type WorkerStores } from "./worker-directories";

/** How often a worker writes its per-minute counters (src/activity/minute-counters.ts). */
const COUNTER_FLUSH_MS = 1000;
/** Directories registered at once while a worker starts (each is a few round trips). */
const STARTUP_LANES = 32;

export interface SyncRuntime {
  queues: SyncQueues;
  dispatcher: OutboxDispatcher;
  /** One per queue shard. */
  workers: Worker[];
  /**
   * Serves a directory from now on (its processor, admission cap, resync schedule): no new Worker.
   * `deleting`: only its deprovision run (src/sync/deleting/deleting.ts).
   */
  addDirectory(dir: DirectoryConfig, deleting?: boolean): Promise<void>;
  /** Stops serving a directory (its queued work stays in Redis). */
  removeDirectory(id: string): Promise<void>;
  /** The directories this runtime serves, kept current. */
  registry: DirectoryRegistry;
  /** The worker role's readiness: Redis connected and every shard's worker running (not closing). */
  canTakeJobs(): boolean;
  /** Is its Redis connection up (a stop with it down has nothing it could finish)? */
  redisReady(): boolean;
  /** Writes the per-minute counters summed so far (they are written once a second, and by `close`). */
  flushCounters(): Promise<void>;
  /** Resolves once the platform key checks due now (at start, for added directories) are done. */
  keyChecksSettled(): Promise<void>;
  /**
   * Directories this process does not serve although they are enabled, and why (no platform key variable
   * here, …): it takes none of their jobs, and pauses nothing for the other workers.
   */
  notServed(): ReadonlyMap<string, string>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  env?: NodeJS.ProcessEnv;
  consumer?: string;
  metrics?: Metrics;
  /** CLIENT SETNAME of the process's connections (default `scim-bridge-worker`). */
  connectionName?: string;
  /** The registry to follow (default: one started on this runtime's Redis connection). */
  registry?: DirectoryRegistry;
  /** How often the dispatcher reads every outbox, signalled or not (dispatcher.ts; tests). */
  outboxFullPollMs?: number;
}

/** Starts the shard workers and the dispatcher for every configured directory. */
export async function startSyncRuntime(config: Config, logger: Logger, opts: RuntimeOptions = {}): Promise<SyncRuntime> {
  const env = opts.env ?? process.env;
  /** This process among the workers (the outbox consumer group's consumer, the key checks' claims). */
  const consumer = opts.consumer ?? `${hostname()}-${process.pid}`;
  const redis = await connectWorkerRedis(config, logger, opts.connectionName ?? "scim-bridge-worker");
  const stores = createWorkerStores(redis, config);
  const queues = new SyncQueues(redis, config);
  const processors = new Map<string, JobProcessor>();
  const clients = new Map<string, PlatformClient>();
  // one pool of platform connections per origin, and one timer each for the key checks and the revivals,
  // whatever the number of directories
  const pools = new PlatformPools();
  const { keyChecks, revivals } = createDirectoryRounds(config);
  // queue depth and lag (the age of the oldest waiting change) for the status page's charts
  const sampler = startChartSampler({ redis, keyPrefix: config.redis.keyPrefix, state: stores.state, counters: stores.counters,
    probe: (dirs) => queues.admission.probe(dirs), directories: () => [...processors.keys()] });
  let closing = false;
  const notServed = new Map<string, string>();
  const keyVars = new KeyVarStore(redis, config.redis.keyPrefix);
  const advertising = await advertiseKeyVars(keyVars, env, logger);
  let dispatcher: OutboxDispatcher | undefined;
  const { addDirectory, removeDirectory } = directoryServing({
    config, logger, env, metrics: opts.metrics, consumer, redis, stores, queues, pools, processors, clients,
    keyChecks, revivals, notServed, dispatcher: () => dispatcher,
  });
  keyChecks.start();
  revivals.start();
  const registry = opts.registry ?? await startRegistry(config, redis, logger);
  // a few directories at a time: one after the other, 1,000 directories took seconds of round trips
  // (more on a cluster) before the first job could run
  await inLanes(registry.served(), STARTUP_LANES, (s) => addDirectory(s.dir, s.deleting));
  const workers = startShardWorkers(redis, queues, config, logger, (dir) => processors.get(dir),
    (dir, job, token) => purgeDeleted({ redis, keyPrefix: config.redis.keyPrefix, queues, logger: logger.child({ directory: dir }), reload: () => registry.reload() }, dir, job, token),
    readmitWhenKeyHeld(registry, notServed, keyVars, queues));
  const recovery = startAdmissionRecovery(queues, config, logger);
  dispatcher = await startDispatcher(redis, queues, registry, config, consumer, opts, logger);
  followRegistry(registry, addDirectory, removeDirectory);

  return {
    queues, dispatcher, workers, addDirectory, removeDirectory, registry,
    canTakeJobs: () => !closing && redis.status === "ready" && workers.every((w) => w.isRunning()),
    redisReady: () => redis.status === "ready",
    flushCounters: () => stores.counters.flush(),
    keyChecksSettled: () => keyChecks.settled(),
    notServed: () => notServed,
    close: async () => {
      closing = true;
      const recovered = recovery.stop(); // the timer stops now; a recovery in progress is awaited below
      const advertised = advertising.stop();
      clearInterval(sampler);
      if (!opts.registry) await registry.stop();
      // the timers stop now; a round in progress (a key check waiting on a slow platform) is awaited last
      const rounds = Promise.all([keyChecks.stop(), revivals.stop()]);
      await dispatcher!.stop();
      await Promise.all(workers.map((w) => w.close()));
      await recovered;
      await advertised;
      await queues.close();
      await rounds;
      await Promise.all([...clients.values()].map((c) => c.close()));
      await pools.close();
      await stores.counters.close().catch(() => undefined);
      await closeConnection(redis);
    },
  };
}

/** The worker's shared connection, ready, on a Redis fit to hold the data (or the start fails). */
async function connectWorkerRedis(config: Config, logger: Logger, name: string): Promise<RedisConnection> {
  const redis = createQueueConnection(config.redis, name);
  // every job sends a dozen commands on this connection: one socket write per loop turn, not one per command
  coalesceWrites(redis);
  redis.on("error", (err) => logger.debug({ err: { message: err.message } }, "redis connection error"));
  await waitReady(redis, 10000).catch((err: Error) => { redis.disconnect(); throw err; });
  // a missing database or an evicting Redis is refused before anything is written (store/redis-setup.ts)
  await assertRedisSetup(config.redis).catch((err: Error) => { redis.disconnect(); throw err; });
  return redis;
}

/** One of each store on the shared connection, for every directory's jobs. */
function createWorkerStores(redis: RedisConnection, config: Config): WorkerStores {
  const prefix = config.redis.keyPrefix;
  return {
    users: new UserStore(redis, prefix),
    groups: new GroupStore(redis, prefix, config.scim.maxGroupMembers),
    state: new SyncStateStore(redis, prefix),
    usage: new ExternalUserUsage(redis, prefix),
    claims: new NameClaims(redis, prefix),
    ownership: new Ownership(redis, prefix),
    activity: new ActivityStore(redis, prefix, config.activity.maxEvents, config.activity.retentionDays),
    // platform calls, sync lag and queue depth of the status page's charts: summed here, written once a second
    counters: new MinuteCounters(redis, prefix, COUNTER_FLUSH_MS),
  };
}

/** One timer for every directory's key checks and one for their revivals. */
function createDirectoryRounds(config: Config): { keyChecks: DirectoryRounds<KeyMonitor>; revivals: DirectoryRounds<Revival> } {
  return {
    // each round verifies the keys no worker has proven in the last half interval (so one alone checks every round)
    keyChecks: new DirectoryRounds<KeyMonitor>(config.sync.keyCheckIntervalMs, (m) => m.checkUnlessProven()),
    revivals: new DirectoryRounds<Revival>(config.sync.reviveTickMs, (r) => r.tick()),
  };
}

/** Tells the other processes which key variables this one holds (for runtime directory creation), now and periodically. */
async function advertiseKeyVars(keyVars: KeyVarStore, env: NodeJS.ProcessEnv, logger: Logger): Promise<Periodic> {
  await keyVars.advertise(env).catch((err: Error) => logger.warn({ err: { message: err.message } }, "could not advertise the key variables"));
  return periodic(() => keyVars.advertise(env), ADVERTISE_MS);
}

/**
 * A reconcile this process parked for want of the key goes back to the shard at once when a worker holding
 * the key runs (at most once a second per directory: workers without it never pass it around in a loop).
 */
function readmitWhenKeyHeld(registry: DirectoryRegistry, notServed: ReadonlyMap<string, string>, keyVars: KeyVarStore, queues: SyncQueues): (dir: string) => Promise<void> {
  const readmitted = new Map<string, number>();
  return async (dir) => {
    const d = registry.get(dir)?.dir;
    if (!d || !notServed.has(dir) || Date.now() - (readmitted.get(dir) ?? 0) < 1000) return;
    readmitted.set(dir, Date.now());
    if (await keyVars.held(d.platform.apiKeyEnv)) await queues.admit(dir);
  };
}

/**
 * Recovery: slots whose job is gone (a worker died between admission and enqueue) go back to the
 * backlog; backlogs get an admission turn. A slot is checked once it is this old (then re-stamped).
 */
function startAdmissionRecovery(queues: SyncQueues, config: Config, logger: Logger): Periodic {
  const leaseMs = Math.max(10000, config.sync.sweepIntervalMs * 2);
  return periodic(() => queues.recover(leaseMs)
    .then((r) => { if (r.requeued) logger.info(r, "admission slots whose job was gone were given back"); })
    .catch((err: Error) => logger.warn({ err: { message: err.message } }, "admission recovery failed")), config.sync.sweepIntervalMs);
}

/** The one outbox dispatcher of the process, for every enabled directory, started. */
async function startDispatcher(redis: RedisConnection, queues: SyncQueues, registry: DirectoryRegistry, config: Config,
  consumer: string, opts: RuntimeOptions, logger: Logger): Promise<OutboxDispatcher> {
  const dispatcher = new OutboxDispatcher(redis, queues, {
    keyPrefix: config.redis.keyPrefix, directoryIds: registry.enabled().map((d) => d.id),
    consumer, sweepIntervalMs: config.sync.sweepIntervalMs,
    claimIdleMs: Math.max(config.sync.sweepIntervalMs, 10000), fullPollMs: opts.outboxFullPollMs,
  }, logger);
  await dispatcher.init();
  dispatcher.start();
  return dispatcher;
}

/**
 * The worker's whole reaction to a directory change: a new or enabled directory is added, a disabled or
 * deleted one removed, a changed one removed and added again with its new settings; a disabled one whose
 * delete deprovisions its platform side is added for that run, and removed when its purge begins.
 */
export function followRegistry(registry: DirectoryRegistry, add: (dir: DirectoryConfig, deleting: boolean) => Promise<void>, remove: (id: string) => Promise<void>): void {
  registry.onChange(async (id, after, before) => {
    if (isServed(before)) await remove(id);
    if (after && isServed(after)) await add(after.dir, after.disabled);
  });
}
