/**
 * The producer side of the sync queues: one BullMQ Queue per directory. Used by the outbox dispatcher,
 * the reconcilers (follow-ups), the admin API and the CLI.
 */
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { Config } from "../config/schema";
import type { SyncKind } from "../store";
import { RECONCILE, RESYNC, dedupId, queueName, queuePrefix, type ReconcileJobData, type ResyncJobData } from "./jobs";

/** Queues of every configured directory. */
export class SyncQueues {
  private readonly queues = new Map<string, Queue>();

  constructor(private readonly connection: Redis, private readonly config: Config) {}

  /** The queue of a directory (created on first use). */
  queue(directoryId: string): Queue {
    let q = this.queues.get(directoryId);
    if (!q) {
      q = new Queue(queueName(directoryId), { connection: this.connection, prefix: queuePrefix(this.config.redis.keyPrefix) });
      q.on("error", () => undefined); // connection errors are retried by ioredis; callers see command errors
      this.queues.set(directoryId, q);
    }
    return q;
  }

  /**
   * Asks for a reconcile of one resource. Deduplicated with `keepLastIfActive`: a change that lands while
   * a reconcile of the same resource runs yields exactly one more, and two never run at once.
   */
  async enqueue(directoryId: string, kind: SyncKind, id: string): Promise<void> {
    await this.queue(directoryId).add(RECONCILE, { kind, id } satisfies ReconcileJobData, this.reconcileOptions(kind, id));
  }

  /** `enqueue` for many resources of one directory in one round trip (BullMQ addBulk: one MULTI). */
  async enqueueMany(directoryId: string, items: Array<{ kind: SyncKind; id: string }>): Promise<void> {
    if (!items.length) return;
    await this.queue(directoryId).addBulk(items.map(({ kind, id }) => ({
      name: RECONCILE, data: { kind, id } satisfies ReconcileJobData, opts: this.reconcileOptions(kind, id),
    })));
  }

  private reconcileOptions(kind: SyncKind, id: string) {
    return {
      deduplication: { id: dedupId(kind, id), keepLastIfActive: true },
      attempts: this.config.sync.attempts,
      backoff: { type: "bridge" },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 10000 },
    };
  }

  /**
   * Asks for a full resync of a directory (one at a time: deduplicated and locked), a dry run of one
   * (`dryRun`: the plan's id), or the deprovisions of a confirmed one (`confirm`: the resync's id).
   */
  async enqueueResync(directoryId: string, requestedBy: string, o: { dryRun?: string; confirm?: string } = {}): Promise<void> {
    const dedup = o.dryRun ? `resync-plan-${o.dryRun}` : o.confirm ? `resync-confirm-${o.confirm}` : "resync";
    await this.queue(directoryId).add(RESYNC, { requestedBy, ...o } satisfies ResyncJobData, {
      deduplication: { id: dedup },
      attempts: 3,
      backoff: { type: "bridge" },
      removeOnComplete: { count: 100 },
      removeOnFail: { count: 100 },
    });
  }

  /** Deletes every job and key of a directory's queue (the directory is being deleted), and forgets it. */
  async obliterate(directoryId: string): Promise<void> {
    const q = this.queue(directoryId);
    await q.obliterate({ force: true });
    await q.close();
    this.queues.delete(directoryId);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }
}
