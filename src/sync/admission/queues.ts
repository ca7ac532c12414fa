/**
 * The producer side of the sync queues: a fixed number of BullMQ queues (the shards, `sync.queueShards`)
 * whatever the number of directories, fed through each directory's admission (src/sync/admission/admission-store.ts).
 * Used by the outbox dispatcher, the reconcilers (follow-ups), the worker (slots freed, parked jobs), the
 * admin API and the CLI. A directory added at run time needs only `register` (its concurrency), no Queue.
 */
import { Queue, type Job, type JobType } from "bullmq";
import type { RedisConnection } from "../../store/connection";
import type { Config } from "../../config/schema";
import { SHARD_QUEUE_NAME, shardPrefix } from "../../store";
import { SyncStateStore, type SyncKind } from "../state/sync-state";
import { AdmissionStore, type Admitted, type SlotChange } from "./admission-store";
import { inLanes } from "../lanes";
import {
  PURGE, RECONCILE, RESYNC, dedupId, memberOf, parseMember, resyncDedupId, shardOf, type PurgeJobData, type ReconcileJobData, type ResyncJobData,
} from "../jobs";

/** The most a directory's recent admissions delay its turns in the shard (see `admit`). */
const SHARE_CAP = 64;

/** Directories the admission recovery checks at once. */
const RECOVERY_LANES = 8;

/** Shard queues and per-directory admission. */
export class SyncQueues {
  readonly shards: number;
  readonly admission: AdmissionStore;
  private readonly queues = new Map<number, Queue>();
  private readonly caps = new Map<string, number>();
  private readonly state: SyncStateStore;

  constructor(private readonly connection: RedisConnection, private readonly config: Config) {
    this.shards = config.sync.queueShards;
    this.admission = new AdmissionStore(connection, config.redis.keyPrefix);
    this.state = new SyncStateStore(connection, config.redis.keyPrefix);
    for (const d of config.directories) this.caps.set(d.id, d.concurrency);
  }

  /** Makes a directory known (its concurrency is its admission cap). No Redis call, no connection. */
  register(directoryId: string, concurrency: number): void {
    this.caps.set(directoryId, concurrency);
  }

  /** Forgets a directory (its backlog stays in Redis until it is registered again). */
  unregister(directoryId: string): void {
    this.caps.delete(directoryId);
  }

  /** Ids of the registered directories. */
  directories(): string[] {
    return [...this.caps.keys()];
  }

  /** Shard queue `n` (created on first use, on the shared connection). */
  shard(n: number): Queue {
    let q = this.queues.get(n);
    if (!q) {
      q = new Queue(SHARD_QUEUE_NAME, { connection: this.connection, prefix: shardPrefix(this.config.redis.keyPrefix, n) });
      q.on("error", () => undefined); // connection errors are retried by ioredis; callers see command errors
      this.queues.set(n, q);
    }
    return q;
  }

  /** The shard queue a directory's jobs run on. */
  queueOf(directoryId: string): Queue {
    return this.shard(shardOf(directoryId, this.shards));
  }

  private cap(directoryId: string): number {
    const cap = this.caps.get(directoryId);
    if (cap === undefined) throw new Error(`unknown directory "${directoryId}"`);
    return cap;
  }

  /**
   * Asks for a reconcile of one resource: into the directory's backlog (once per resource), then admitted
   * into its shard as far as the directory's free slots allow.
   */
  async enqueue(directoryId: string, kind: SyncKind, id: string): Promise<void> {
    await this.enqueueMany(directoryId, [{ kind, id }]);
  }

  /** `enqueue` for many resources of one directory (backlog write and admission in one command). */
  async enqueueMany(directoryId: string, items: Array<{ kind: SyncKind; id: string }>): Promise<void> {
    const cap = this.cap(directoryId);
    if (!items.length) return;
    await this.addAdmitted(directoryId, await this.admission.addAndAdmit(directoryId, cap, items.map((i) => memberOf(i.kind, i.id))));
  }

  /**
   * Moves what the directory's free slots allow from its backlog into its shard. Deduplicated with
   * `keepLastIfActive`, so a job added again for a resource whose job still exists (recovery) is harmless.
   * If the shard refuses, the members go back into the backlog: nothing is lost.
   *
   * Fair turns between the directories of a shard, so one directory's 50,000-user resync cannot starve a
   * 5-user change of another (admission.md). Admission caps each directory's jobs in the shard; the job's
   * priority is its turn (the directory's 1st, 2nd… job in flight), and BullMQ runs lower priorities first
   * (FIFO within one): a directory's first job waits only for other directories' first jobs, not behind
   * the 2nd–`concurrency`th jobs of every directory admitted before it.
   *
   * A turn alone restarts at 1 whenever a directory's jobs finish, so a directory with a steady backlog
   * would have a turn-1 job queued at all times, and one that arrives later would queue its first job behind
   * those of every busy directory. So the turn is made later by the directory's share: the jobs it has admitted since it last had
   * none in flight for longer than a few seconds (SHARE_GRACE_MS: a directory whose IdP pushes a change every
   * second is busy, even when each change was done before the next came), at most SHARE_CAP. A directory
   * that was idle goes before the busy ones' next jobs; a busy one is at most SHARE_CAP turns behind, and
   * once every busy directory is there, turns decide alone.
   */
  async admit(directoryId: string, change?: { op: SlotChange; member: string }): Promise<number> {
    const cap = this.caps.get(directoryId);
    if (cap === undefined) {
      if (change) await this.admission.admit(directoryId, 0, Date.now(), change);
      return 0;
    }
    return this.addAdmitted(directoryId, await this.admission.admitWithTurns(directoryId, cap, Date.now(), change));
  }

  /**
   * Takes a batch of a directory's outbox entries (`ids` of `stream`, read through `group`) into its
   * backlog, acking them in the same command, and adds the jobs of what that admits (AdmissionStore.dispatch).
   */
  async dispatch(directoryId: string, items: Array<{ kind: SyncKind; id: string }>, outbox: { stream: string; group: string; ids: string[] }): Promise<void> {
    const cap = this.cap(directoryId);
    const admitted = await this.admission.dispatch(directoryId, cap, outbox, items.map((i) => ({ ...i, member: memberOf(i.kind, i.id) })));
    await this.addAdmitted(directoryId, admitted);
  }

  /** Adds the jobs of members just admitted to the shard; if the shard refuses, they go back into the backlog. */
  private async addAdmitted(directoryId: string, admitted: Admitted[]): Promise<number> {
    if (!admitted.length) return 0;
    const members = admitted.map((a) => a.member);
    const s = this.config.sync;
    const queue = this.queueOf(directoryId);
    try {
      await Promise.all(admitted.map(({ member: m, turn, share }) => {
        const { kind, id } = parseMember(m);
        return queue.add(RECONCILE, { dir: directoryId, kind, id } satisfies ReconcileJobData, {
          priority: turn + Math.min(share, SHARE_CAP),
          deduplication: { id: dedupId(directoryId, kind, id), keepLastIfActive: true },
          attempts: s.attempts,
          backoff: { type: "bridge" },
          removeOnComplete: { count: 1000 },
          removeOnFail: { count: 10000 },
        });
      }));
    } catch (err) {
      await Promise.all(members.map((m) => this.admission.requeue(directoryId, m))).catch(() => undefined);
      throw err;
    }
    return members.length;
  }

  /**
   * A resource's job finished (completed or failed for good): frees its slot and admits the next (one
   * command). `admitNext` false (the worker is closing): only frees it; the next runtime admits.
   */
  async release(directoryId: string, kind: SyncKind, id: string, admitNext = true): Promise<void> {
    if (admitNext) await this.admit(directoryId, { op: "release", member: memberOf(kind, id) });
    else await this.admission.release(directoryId, memberOf(kind, id));
  }

  /** A reconcile's job went into a retry delay: its slot goes to the next resource meanwhile. */
  async retrying(directoryId: string, kind: SyncKind, id: string): Promise<void> {
    await this.admit(directoryId, { op: "retrying", member: memberOf(kind, id) });
  }

  /**
   * The priority of a reconcile that waits for other resources of its directory (WaitError): the latest
   * turn a job of the directory can have (`concurrency` + SHARE_CAP), so it re-runs after every job its
   * directory has in the shard, the ones it waits for among them (src/sync/admission/outcome.ts). Undefined for a
   * directory no longer served (removed while its job ran): the job keeps its priority.
   */
  waitingPriority(directoryId: string): number | undefined {
    const cap = this.caps.get(directoryId);
    return cap === undefined ? undefined : cap + SHARE_CAP;
  }

  /** A reconcile waits for other resources of its directory (WaitError): its slot goes to them meanwhile. */
  async waiting(directoryId: string, kind: SyncKind, id: string): Promise<void> {
    await this.admit(directoryId, { op: "waiting", member: memberOf(kind, id) });
  }

  /** A paused directory's admitted job: back to the front of its backlog, slot freed. */
  async park(directoryId: string, kind: SyncKind, id: string): Promise<void> {
    await this.admission.park(directoryId, memberOf(kind, id));
  }

  /** Holds a directory's admission for `ms` (429 Retry-After). */
  async hold(directoryId: string, ms: number): Promise<void> {
    await this.admission.hold(directoryId, ms);
  }

  /**
   * Asks for a full resync of a directory (one at a time: deduplicated and locked), a dry run of one
   * (`dryRun`: the plan's id), or the deprovisions of a confirmed one (`confirm`: the resync's id).
   */
  async enqueueResync(directoryId: string, requestedBy: string, o: { dryRun?: string; confirm?: string; deprovision?: string } = {}): Promise<void> {
    this.cap(directoryId);
    const dedup = o.dryRun ? `resync-plan-${o.dryRun}` : o.confirm ? `resync-confirm-${o.confirm}` : o.deprovision ? `resync-deprovision-${o.deprovision}` : "resync";
    await this.queueOf(directoryId).add(RESYNC, { dir: directoryId, requestedBy, ...o } satisfies ResyncJobData, {
      deduplication: { id: resyncDedupId(directoryId, dedup) },
      attempts: 3,
      backoff: { type: "bridge" },
      removeOnComplete: { count: 100 },
      removeOnFail: { count: 100 },
    });
  }

  /** Asks for the purge of a directory whose delete deprovisioned its platform side (once at a time). */
  async enqueuePurge(directoryId: string, delayMs = 0): Promise<void> {
    await this.queueOf(directoryId).add(PURGE, { dir: directoryId } satisfies PurgeJobData, {
      deduplication: { id: resyncDedupId(directoryId, "purge") },
      delay: delayMs,
      attempts: 5,
      backoff: { type: "bridge" },
      removeOnComplete: true,
      removeOnFail: { count: 100 },
    });
  }

  /** Deletes every job and key of a directory's queue (the directory is being deleted), and forgets it. */
  async obliterate(directoryId: string): Promise<void> {
    // the shard is shared: only this directory's jobs go (its admission keys live under its own hash tag
    // and go with the rest of its keys)
    for (const job of await this.jobsOf(directoryId, ["waiting", "prioritized", "delayed", "completed", "failed", "active"])) {
      await job.remove().catch(() => undefined);
    }
    this.unregister(directoryId);
  }

  /** True while a directory is paused (401 or an operator). */
  async isPaused(directoryId: string): Promise<boolean> {
    return (await this.state.meta(directoryId)).paused !== undefined;
  }

  /** A directory's work not finished: resources in its backlog and admitted into its shard. */
  depth(directoryId: string): Promise<{ backlog: number; admitted: number }> {
    return this.admission.depth(directoryId);
  }

  /**
   * A directory's jobs in its shard in the given states. Reads the whole shard's lists: for tests,
   * diagnostics and small set-ups, not for per-scrape metrics.
   */
  async jobsOf(directoryId: string, states: JobType[]): Promise<Job[]> {
    // reconciles wait in the shard's prioritized set (their turn is their priority): waiting either way
    const wanted = states.some((s) => s === "wait" || s === "waiting") && !states.includes("prioritized") ? [...states, "prioritized" as JobType] : states;
    const jobs = await this.queueOf(directoryId).getJobs(wanted, 0, -1);
    return jobs.filter((j) => j && (j.data as { dir?: string }).dir === directoryId);
  }

  /**
   * Recovery, run by every worker now and then: a member in flight for longer than `olderThanMs` whose
   * job no longer exists (a process died between admission and add, or between a job's end and its slot's
   * release) goes back into the backlog; every registered directory with a backlog gets an admission turn.
   */
  async recover(olderThanMs: number): Promise<{ requeued: number; admitted: number }> {
    let requeued = 0;
    let admitted = 0;
    const dirs = this.directories();
    // one probe per directory: its backlog and its admissions older than the lease
    const probes = await this.admission.probe(dirs, Date.now() - olderThanMs);
    const toAdmit = new Set(dirs.filter((d) => probes.get(d)!.backlog > 0));
    const stale = [...probes].filter(([, p]) => p.old.length > 0);
    // a few directories at a time: one after the other, a thousand directories with admissions in their
    // shards would be thousands of round trips in a row every sweep
    await inLanes(stale, RECOVERY_LANES, async ([dir, { old }]) => {
      const queue = this.queueOf(dir);
      const jobs = await Promise.all(old.map(({ member }) => {
        const { kind, id } = parseMember(member);
        return queue.getDeduplicationJobId(dedupId(dir, kind, id));
      }));
      const alive: string[] = [];
      for (const [i, seen] of old.entries()) {
        if (jobs[i]) alive.push(seen.member);
        // only the admission read above: a job that finished since was released (and perhaps admitted
        // again), and putting it back would run it once more for nothing
        else if (await this.admission.giveBack(dir, seen)) {
          requeued++;
          toAdmit.add(dir);
        }
      }
      await this.admission.touch(dir, alive);
    });
    await inLanes([...toAdmit], RECOVERY_LANES, async (dir) => {
      const n = await this.admit(dir); // (not `admitted += await …`: that reads `admitted` before the await)
      admitted += n;
    });
    return { requeued, admitted };
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
