/**
 * A completed reconcile frees its directory's admission slot before BullMQ completes its job, so the
 * Worker place that ran it takes the directory's next job in BullMQ's own completion command (fetch-next)
 * instead of waiting on the shard's marker (src/sync/admission/shard-worker.ts). Real Redis, BullMQ and the simulator.
 */
import type { Job } from "bullmq";
import { startSyncEnv, waitFor } from "../helpers/sync-env";
import { createUser, waitAllSynced } from "../helpers/sync-wait";

describe("admission slot hand-off", () => {
  it("should have the directory's next reconcile in the shard when BullMQ reports the previous one completed", async () => {
    // one shard, one place, one slot: the second user can only be admitted once the first one's slot is free
    const e = await startSyncEnv({ runtime: false, config: { sync: { queueShards: 1, shardConcurrency: 1 } }, wf: { concurrency: 1 } });
    try {
      const first = await createUser(e, "wf", "first.handoff@example.com");
      const second = await createUser(e, "wf", "second.handoff@example.com");
      const runtime = await e.startRuntime();
      const seen: Array<Promise<{ completed: string; next: string[] }>> = [];
      runtime.workers[0].on("completed", (job: Job) => {
        if (job.name !== "reconcile" || seen.length) return;
        // read at once, in the tick BullMQ reports the completion: a slot freed only now (on this event)
        // could not have had the next job added yet, which needs the admission's answer first
        seen.push(runtime.queues.jobsOf("wf", ["wait", "prioritized", "active"]).then((jobs) => ({
          completed: (job.data as { id: string }).id,
          next: jobs.filter((j) => j.id !== job.id).map((j) => (j.data as { id: string }).id),
        })));
      });
      await waitAllSynced(e, "wf", "user", [first, second]);
      const s = await waitFor(async () => seen[0], 10000, "the first completed reconcile");
      const other = s.completed === first ? second : first;
      expect(s.next).toEqual([other]);
    } finally {
      await e.close();
    }
  });
});
