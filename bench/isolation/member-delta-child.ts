/**
 * The worker's store side of a workforce group's member reconcile, in a process of its own (so its work
 * neither slows the bench's load clients nor hides in them): on each message it computes the group's
 * member delta (SyncStateStore.memberDelta) and settles it (settleMembers) as reconcileWorkforceGroup does
 * for an existing platform group, until no changed member waits. The platform calls between the two are
 * left out: they cost the platform's time, not Redis's. Answers how long that took and what it applied.
 * Env: REDIS_URL, BENCH_PREFIX, BENCH_DIR, BENCH_GROUP.
 */
import { Redis } from "ioredis";
import { SyncStateStore } from "../../src/sync/state/sync-state";

const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
const state = new SyncStateStore(redis as never, process.env.BENCH_PREFIX!);
const dir = process.env.BENCH_DIR!;
const group = process.env.BENCH_GROUP!;

async function applyDelta(): Promise<{ ms: number; added: number; removed: number; rounds: number }> {
  const t0 = performance.now();
  let added = 0;
  let removed = 0;
  let rounds = 0;
  for (let waiting = 1; waiting > 0 && rounds < 1000; rounds++) {
    const d = await state.memberDelta(dir, group);
    waiting = await state.settleMembers(dir, group, { seen: d.seen, scores: d.scores, add: d.add.map((m) => m.id), remove: d.remove.map((m) => m.id) });
    added += d.add.length;
    removed += d.remove.length;
    if (!d.seen.length) break;
  }
  return { ms: performance.now() - t0, added, removed, rounds };
}

process.on("message", (msg) => {
  if (msg === "stop") { redis.disconnect(); process.exit(0); }
  applyDelta().then((r) => process.send!(r), (err: Error) => process.send!({ error: err.message }));
});
process.on("disconnect", () => process.exit(0));
process.send!("ready");
