/**
 * How the worker role serves one directory and stops serving it: its platform client, revival, processor,
 * resync schedule, key monitor, admission and outbox. The process-wide parts these register into (the
 * maps, the rounds, the queues, the dispatcher) are built once by src/roles/worker.ts.
 */
import type { RedisConnection } from "../store/connection";
import type { Logger } from "pino";
import type { Config, DirectoryConfig } from "../config/schema";
import type { PlatformClient, PlatformPools } from "../platform";
import type { GroupStore, UserStore } from "../store";
import type { MinuteCounters } from "../activity/minute-counters";
import type { SyncStateStore } from "../sync/state/sync-state";
import type { ActivityStore } from "../activity/activity-store";
import type { NameClaims } from "../sync/ownership/name-claims";
import type { Ownership } from "../sync/ownership/ownership-store";
import type { ExternalUserUsage } from "../sync/ownership/external-user-usage";
import type { Metrics } from "../observability/metrics";
import type { ReconcileContext } from "../sync/context";
import type { OutboxDispatcher } from "../sync/admission/dispatcher";
import type { SyncQueues } from "../sync/admission/queues";
import type { JobProcessor } from "../sync/admission/shard-worker";
import type { DirectoryRounds } from "../sync/directory-rounds";
import { pauseDirectory } from "../sync/control/directory-control";
import { withEmptyDesiredState } from "../sync/deleting/empty-desired";
import { PlatformReach } from "../sync/platform-calls/reachability";
import { createDirectoryPlatform } from "../sync/platform-calls/directory-platform";
import { RESYNC, resyncSchedulerId } from "../sync/jobs";
import { DeprovisionBrake } from "../sync/brake/brake";
import { KeyMonitor, keyFingerprint } from "../sync/control/key-check";
import { Revival } from "../sync/admission/revival";
import { createProcessor } from "../sync/processor";

/** The stores every directory's jobs use, one of each per process. */
export interface WorkerStores {
  users: UserStore;
  groups: GroupStore;
  state: SyncStateStore;
  usage: ExternalUserUsage;
  claims: NameClaims;
  ownership: Ownership;
  activity: ActivityStore;
  counters: MinuteCounters;
}

/** The process-wide parts a served directory is registered into. */
export interface ServingParts {
  config: Config;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  metrics?: Metrics;
  /** This process among the workers (the key checks' claims). */
  consumer: string;
  redis: RedisConnection;
  stores: WorkerStores;
  queues: SyncQueues;
  pools: PlatformPools;
  processors: Map<string, JobProcessor>;
  clients: Map<string, PlatformClient>;
  keyChecks: DirectoryRounds<KeyMonitor>;
  revivals: DirectoryRounds<Revival>;
  /** Enabled directories this process cannot serve, and why. */
  notServed: Map<string, string>;
  /** Undefined while the worker starts: the dispatcher is created with the directories served at start. */
  dispatcher: () => OutboxDispatcher | undefined;
}

export interface DirectoryServing {
  addDirectory(dir: DirectoryConfig, deleting?: boolean): Promise<void>;
  removeDirectory(id: string): Promise<void>;
}

export function directoryServing(p: ServingParts): DirectoryServing {
  const { config, redis, queues, stores } = p;
  const prefix = config.redis.keyPrefix;

  const addDirectory = async (dir: DirectoryConfig, deleting = false): Promise<void> => {
    const log = p.logger.child({ directory: dir.id });
    queues.register(dir.id, dir.concurrency);
    const pause = (reason: string) => {
      log.error({ reason }, "directory paused");
      return pauseDirectory(stores.state, dir.id, reason);
    };
    let monitor: KeyMonitor | undefined;
    const s = config.sync;
    const revival = new Revival(redis, prefix, dir.id, stores.state, (kind, id) => queues.enqueue(dir.id, kind, id),
      { baseMs: s.reviveBaseMs, maxMs: s.reviveMaxMs, outageGapMs: s.outageGapMs }, log);
    const reach = new PlatformReach(stores.state, dir.id);
    const platform = createDirectoryPlatform(dir, config, redis, p.env, p.logger, p.metrics, (status) => {
      if (status >= 200 && status < 300) monitor?.succeeded();
      revival.onCall(status);
      reach.onCall(status);
    }, p.pools, stores.counters);
    if (typeof platform === "string") {
      // a problem of this process only (its environment): another worker may hold the key, so nothing shared
      // is written — no pause, no key status. Its jobs are parked back for a worker that serves it.
      p.notServed.set(dir.id, platform);
      log.error({ reason: platform }, "directory not served by this process: its jobs are left to a worker that has its platform key; nothing is paused");
      return;
    }
    p.notServed.delete(dir.id);
    p.clients.set(dir.id, platform);
    const { users, groups, state, usage, claims, ownership, activity, counters } = stores;
    const served: ReconcileContext = {
      dir, users, groups, state, platform, usage, claims, ownership, logger: log, brake: new DeprovisionBrake(redis, prefix, log),
      enqueue: (kind, id) => queues.enqueue(dir.id, kind, id),
    };
    // a directory being deleted with platform=deprovision: its desired state is empty
    const ctx = deleting ? withEmptyDesiredState(served) : served;
    p.processors.set(dir.id, createProcessor({
      ctx, redis, keyPrefix: prefix, pause, metrics: p.metrics, revival,
      activity, counters, ...(deleting ? { deleting: { redis, keyPrefix: prefix, queues, logger: log } } : {}),
      hold: (ms) => queues.hold(dir.id, ms),
      onWait: (kind, id) => queues.waiting(dir.id, kind, id),
      waitPriority: () => queues.waitingPriority(dir.id),
    }));
    p.revivals.add(dir.id, revival);
    const scheduler = resyncSchedulerId(dir.id);
    if (dir.resyncSchedule && !deleting) {
      await queues.queueOf(dir.id).upsertJobScheduler(scheduler, { pattern: dir.resyncSchedule }, { name: RESYNC, data: { dir: dir.id, requestedBy: "schedule" } });
    } else {
      await queues.queueOf(dir.id).removeJobScheduler(scheduler);
    }
    monitor = new KeyMonitor(platform, dir, state, pause, log,
      { fingerprint: keyFingerprint(dir, p.env[dir.platform.apiKeyEnv] ?? ""), freshMs: config.sync.keyCheckIntervalMs / 2, holder: p.consumer });
    p.keyChecks.add(dir.id, monitor, true); // checked now (in the background) unless proven lately, then every keyCheckIntervalMs
    await queues.admit(dir.id);
    // a directory being deleted takes no change from its outbox (SCIM refuses it anyway; what waits there is purged)
    if (!deleting) await p.dispatcher()?.addDirectory(dir.id);
  };

  const removeDirectory = async (id: string): Promise<void> => {
    p.notServed.delete(id);
    p.dispatcher()?.removeDirectory(id);
    p.processors.delete(id);
    // its last second of chart counts goes: a delete purges its keys right after disabling it
    stores.counters.forget(id);
    queues.unregister(id);
    p.keyChecks.remove(id);
    p.revivals.remove(id);
    await queues.queueOf(id).removeJobScheduler(resyncSchedulerId(id));
    const client = p.clients.get(id);
    p.clients.delete(id);
    await client?.close();
  };

  return { addDirectory, removeDirectory };
}
