/**
 * The worker role: one BullMQ Worker per queue shard (src/sync/admission/shard-worker.ts) running every directory's
 * jobs through that directory's processor, and one outbox dispatcher for all directories. The Redis
 * connections of a process do not grow with the directories: one shared connection, the dispatcher's
 * idle wait on the outbox signal, and one blocking connection per shard Worker. Nor do its other
 * per-process costs: one platform connection pool per origin (src/platform/platform-pools.ts; each
 * directory keeps its own connection cap), one timer for every directory's key checks and one for their revivals
 * (src/sync/directory-rounds.ts). Directories are registered (a processor in
 * a map); `addDirectory` / `removeDirectory` do that at run time without a new Worker. Several processes
 * started with this share the work through Redis. `close()` stops taking work and waits for active jobs.
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
import { MinuteCounters } from "../activity/minute-counters";
import { SyncStateStore } from "../sync/state/sync-state";
import { ActivityStore } from "../activity/activity-store";
import { NameClaims } from "../sync/ownership/name-claims";
import { Ownership } from "../sync/ownership/ownership-store";
import type { Metrics } from "../observability/metrics";
import type { ReconcileContext } from "../sync/context";
import { purgeDeleted } from "../sync/deleting/deleting";
import { pauseDirectory } from "../sync/control/directory-control";
import { ADVERTISE_MS, KeyVarStore } from "../sync/control/key-var-store";
import { DirectoryRounds } from "../sync/directory-rounds";
import { withEmptyDesiredState } from "../sync/deleting/empty-desired";
import { PlatformReach } from "../sync/platform-calls/reachability";
import { startChartSampler } from "../sync/waiting/chart-sampler";
import { createDirectoryPlatform } from "../sync/platform-calls/directory-platform";
import { OutboxDispatcher } from "../sync/admission/dispatcher";
import { ExternalUserUsage } from "../sync/ownership/external-user-usage";
import { RESYNC, resyncSchedulerId } from "../sync/jobs";
import { DeprovisionBrake } from "../sync/brake/brake";
import { KeyMonitor, keyFingerprint } from "../sync/control/key-check";
import { Revival } from "../sync/admission/revival";
import { createProcessor } from "../sync/processor";
import { SyncQueues } from "../sync/admission/queues";
import { startShardWorkers, type JobProcessor } from "../sync/admission/shard-worker";
import { inLanes } from "../sync/lanes";
import { periodic } from "../sync/periodic";

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
  const redis = createQueueConnection(config.redis, opts.connectionName ?? "scim-bridge-worker");
  // every job sends a dozen commands on this connection: one socket write per loop turn, not one per command
  coalesceWrites(redis);
  redis.on("error", (err) => logger.debug({ err: { message: err.message } }, "redis connection error"));
  await waitReady(redis, 10000).catch((err: Error) => { redis.disconnect(); throw err; });
  // a missing database or an evicting Redis is refused before anything is written (store/redis-setup.ts)
  await assertRedisSetup(config.redis).catch((err: Error) => { redis.disconnect(); throw err; });
  const prefix = config.redis.keyPrefix;
  const users = new UserStore(redis, prefix);
  const groups = new GroupStore(redis, prefix, config.scim.maxGroupMembers);
  const state = new SyncStateStore(redis, prefix);
  const usage = new ExternalUserUsage(redis, prefix);
  const claims = new NameClaims(redis, prefix);
  const ownership = new Ownership(redis, prefix);
  const queues = new SyncQueues(redis, config);
  const processors = new Map<string, JobProcessor>();
  const clients = new Map<string, PlatformClient>();
  // one pool of platform connections per origin, and one timer each for the key checks and the revivals,
  // whatever the number of directories
  const pools = new PlatformPools();
  // each round verifies the keys no worker has proven in the last half interval (so one alone checks every round)
  const keyChecks = new DirectoryRounds<KeyMonitor>(config.sync.keyCheckIntervalMs, (m) => m.checkUnlessProven());
  const revivals = new DirectoryRounds<Revival>(config.sync.reviveTickMs, (r) => r.tick());
  const activity = new ActivityStore(redis, prefix, config.activity.maxEvents, config.activity.retentionDays);
  // platform calls, sync lag and queue depth of the status page's charts: summed here, written once a second
  const counters = new MinuteCounters(redis, prefix, COUNTER_FLUSH_MS);
  let dispatcher: OutboxDispatcher | undefined;
  // queue depth and lag (the age of the oldest waiting change) for the status page's charts
  const sampler = startChartSampler({ redis, keyPrefix: prefix, state, counters, probe: (dirs) => queues.admission.probe(dirs), directories: () => [...processors.keys()] });
  let closing = false;
  const notServed = new Map<string, string>();
  // the key variables this process holds, for runtime directory creation (src/sync/key-vars/)
  const keyVars = new KeyVarStore(redis, prefix);
  await keyVars.advertise(env).catch((err: Error) => logger.warn({ err: { message: err.message } }, "could not advertise the key variables"));
  const advertising = periodic(() => keyVars.advertise(env), ADVERTISE_MS);

  const addDirectory = async (dir: DirectoryConfig, deleting = false): Promise<void> => {
    const log = logger.child({ directory: dir.id });
    queues.register(dir.id, dir.concurrency);
    const pause = (reason: string) => {
      log.error({ reason }, "directory paused");
      return pauseDirectory(state, dir.id, reason);
    };
    let monitor: KeyMonitor | undefined;
    const s = config.sync;
    const revival = new Revival(redis, prefix, dir.id, state, (kind, id) => queues.enqueue(dir.id, kind, id),
      { baseMs: s.reviveBaseMs, maxMs: s.reviveMaxMs, outageGapMs: s.outageGapMs }, log);
    const reach = new PlatformReach(state, dir.id);
    const platform = createDirectoryPlatform(dir, config, redis, env, logger, opts.metrics, (status) => {
      if (status >= 200 && status < 300) monitor?.succeeded();
      revival.onCall(status);
      reach.onCall(status);
    }, pools, counters);
    if (typeof platform === "string") {
      // a problem of this process only (its environment): another worker may hold the key, so nothing shared
      // is written — no pause, no key status. Its jobs are parked back for a worker that serves it.
      notServed.set(dir.id, platform);
      log.error({ reason: platform }, "directory not served by this process: its jobs are left to a worker that has its platform key; nothing is paused");
      return;
    }
    notServed.delete(dir.id);
    clients.set(dir.id, platform);
    const served: ReconcileContext = {
      dir, users, groups, state, platform, usage, claims, ownership, logger: log, brake: new DeprovisionBrake(redis, prefix, log),
      enqueue: (kind, id) => queues.enqueue(dir.id, kind, id),
    };
    // a directory being deleted with platform=deprovision: its desired state is empty
    const ctx = deleting ? withEmptyDesiredState(served) : served;
    processors.set(dir.id, createProcessor({
      ctx, redis, keyPrefix: prefix, pause, metrics: opts.metrics, revival,
      activity, counters, ...(deleting ? { deleting: { redis, keyPrefix: prefix, queues, logger: log } } : {}),
      hold: (ms) => queues.hold(dir.id, ms),
      onWait: (kind, id) => queues.waiting(dir.id, kind, id),
      waitPriority: () => queues.waitingPriority(dir.id),
    }));
    revivals.add(dir.id, revival);
    const scheduler = resyncSchedulerId(dir.id);
    if (dir.resyncSchedule && !deleting) {
      await queues.queueOf(dir.id).upsertJobScheduler(scheduler, { pattern: dir.resyncSchedule }, { name: RESYNC, data: { dir: dir.id, requestedBy: "schedule" } });
    } else {
      await queues.queueOf(dir.id).removeJobScheduler(scheduler);
    }
    monitor = new KeyMonitor(platform, dir, state, pause, log,
      { fingerprint: keyFingerprint(dir, env[dir.platform.apiKeyEnv] ?? ""), freshMs: config.sync.keyCheckIntervalMs / 2, holder: consumer });
    keyChecks.add(dir.id, monitor, true); // checked now (in the background) unless proven lately, then every keyCheckIntervalMs
    await queues.admit(dir.id);
    // a directory being deleted takes no change from its outbox (SCIM refuses it anyway; what waits there is purged)
    if (!deleting) await dispatcher?.addDirectory(dir.id);
  };

  const removeDirectory = async (id: string): Promise<void> => {
    notServed.delete(id);
    dispatcher?.removeDirectory(id);
    processors.delete(id);
    // its last second of chart counts goes: a delete purges its keys right after disabling it
    counters.forget(id);
    queues.unregister(id);
    keyChecks.remove(id);
    revivals.remove(id);
    await queues.queueOf(id).removeJobScheduler(resyncSchedulerId(id));
    const client = clients.get(id);
    clients.delete(id);
    await client?.close();
  };

  keyChecks.start();
  revivals.start();
  const registry = opts.registry ?? await startRegistry(config, redis, logger);
  // a few directories at a time: one after the other, 1,000 directories took seconds of round trips
  // (more on a cluster) before the first job could run
  await inLanes(registry.served(), STARTUP_LANES, (s) => addDirectory(s.dir, s.deleting));
  // a reconcile this process parked for want of the key goes back to the shard at once when a worker holding
  // the key runs (at most once a second per directory: workers without it never pass it around in a loop)
  const readmitted = new Map<string, number>();
  const readmitUnserved = async (dir: string): Promise<void> => {
    const d = registry.get(dir)?.dir;
    if (!d || !notServed.has(dir) || Date.now() - (readmitted.get(dir) ?? 0) < 1000) return;
    readmitted.set(dir, Date.now());
    if (await keyVars.held(d.platform.apiKeyEnv)) await queues.admit(dir);
  };
  const workers = startShardWorkers(redis, queues, config, logger, (dir) => processors.get(dir),
    (dir, job, token) => purgeDeleted({ redis, keyPrefix: prefix, queues, logger: logger.child({ directory: dir }), reload: () => registry.reload() }, dir, job, token),
    readmitUnserved);

  // recovery: slots whose job is gone (a worker died between admission and enqueue) go back to the
  // backlog; backlogs get an admission turn. A slot is checked once it is this old (then re-stamped).
  const leaseMs = Math.max(10000, config.sync.sweepIntervalMs * 2);
  const recovery = periodic(() => queues.recover(leaseMs)
    .then((r) => { if (r.requeued) logger.info(r, "admission slots whose job was gone were given back"); })
    .catch((err: Error) => logger.warn({ err: { message: err.message } }, "admission recovery failed")), config.sync.sweepIntervalMs);

  dispatcher = new OutboxDispatcher(redis, queues, {
    keyPrefix: prefix, directoryIds: registry.enabled().map((d) => d.id),
    consumer, sweepIntervalMs: config.sync.sweepIntervalMs,
    claimIdleMs: Math.max(config.sync.sweepIntervalMs, 10000), fullPollMs: opts.outboxFullPollMs,
  }, logger);
  await dispatcher.init();
  dispatcher.start();
  followRegistry(registry, addDirectory, removeDirectory);

  return {
    queues, dispatcher, workers, addDirectory, removeDirectory, registry,
    canTakeJobs: () => !closing && redis.status === "ready" && workers.every((w) => w.isRunning()),
    redisReady: () => redis.status === "ready",
    flushCounters: () => counters.flush(),
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
      await counters.close().catch(() => undefined);
      await closeConnection(redis);
    },
  };
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
