/**
 * One directory's view of its queue shard, with the names of a BullMQ Queue's getters: its jobs in the
 * shard plus, counted as waiting, the resources in its backlog not yet admitted. It reads the shard's job
 * lists and keeps the directory's jobs, so it is for tests, diagnostics and small set-ups; per-scrape
 * metrics and status pages use `SyncQueues.depth` (two counters).
 */
import type { Job, JobType } from "bullmq";
import type { SyncQueues } from "../../src/sync/admission/queues";

const WAITING = new Set(["wait", "waiting"]);

export class DirectoryQueue {
  constructor(private readonly queues: SyncQueues, readonly directoryId: string) {}

  /** The directory's jobs in these states (waiting ones in the shard only, not its backlog). */
  getJobs(states: JobType[] | JobType, start = 0, end = -1): Promise<Job[]> {
    void start; void end;
    return this.queues.jobsOf(this.directoryId, Array.isArray(states) ? states : [states]);
  }

  /** Counts by state; "wait"/"waiting" include the backlog. */
  async getJobCounts(...states: string[]): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const { backlog } = await this.queues.depth(this.directoryId);
    for (const s of states) {
      const n = (await this.queues.jobsOf(this.directoryId, [(WAITING.has(s) ? "wait" : s) as JobType])).length;
      out[s] = n + (WAITING.has(s) ? backlog : 0);
    }
    return out;
  }

  async getWaitingCount(): Promise<number> { return (await this.getJobCounts("wait")).wait; }
  async getActiveCount(): Promise<number> { return (await this.getJobCounts("active")).active; }
  async getDelayedCount(): Promise<number> { return (await this.getJobCounts("delayed")).delayed; }
  async getFailedCount(): Promise<number> { return (await this.getJobCounts("failed")).failed; }
  getActive(): Promise<Job[]> { return this.getJobs(["active"]); }
  getJobState(id: string): Promise<string> { return this.queues.queueOf(this.directoryId).getJobState(id); }
  getJob(id: string): Promise<Job | undefined> { return this.queues.queueOf(this.directoryId).getJob(id); }
  isPaused(): Promise<boolean> { return this.queues.isPaused(this.directoryId); }
}

/** A directory's view of its shard. */
export function directoryQueue(queues: SyncQueues, directoryId: string): DirectoryQueue {
  return new DirectoryQueue(queues, directoryId);
}
