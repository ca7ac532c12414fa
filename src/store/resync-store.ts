/**
 * A directory's full-resync progress in Redis (keys: resync-keys.ts). The resync itself (what to list and
 * compare) is src/sync/resync.ts; this file is what it writes and reads, including the script that counts
 * one settled resource.
 */
import type { RedisConnection } from "./connection";
import { ResyncKeys } from "./resync-keys";

/*
  KEYS[1] pending set, KEYS[2] progress hash, KEYS[3] lock; ARGV[1] "<kind>:<id>", ARGV[2] outcome field, ARGV[3] now
  Counts one settled resource if the running resync waits for it; finishes the resync on the last one.
*/
const SETTLE = `
if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], 'done', 1)
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
if redis.call('SCARD', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[2], 'status', 'done', 'phase', 'done', 'finishedAt', ARGV[3])
  redis.call('DEL', KEYS[3])
end
return 1`;

/** Progress of the latest resync of a directory, as stored (numbers parsed). */
export interface ResyncProgress {
  id?: string;
  status?: "running" | "done";
  phase?: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  deactivated: number;
  deleted: number;
  unchanged: number;
  failed: number;
  startedAt?: string;
  finishedAt?: string;
  requestedBy?: string;
  /** Why the listing phase failed (phase "failed"). */
  error?: string;
}

const now = () => new Date().toISOString();

/** Resync progress of every directory, on one connection. */
export class ResyncStore {
  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {}

  keys(dir: string): ResyncKeys {
    return new ResyncKeys(this.keyPrefix, dir);
  }

  async read(dir: string): Promise<ResyncProgress> {
    const h = await this.redis.hgetall(this.keys(dir).progress);
    const n = (k: string) => Number(h[k] ?? 0);
    return {
      id: h.id, status: h.status as ResyncProgress["status"], phase: h.phase, total: n("total"), done: n("done"), created: n("created"),
      updated: n("updated"), deactivated: n("deactivated"), deleted: n("deleted"), unchanged: n("unchanged"), failed: n("failed"),
      startedAt: h.startedAt, finishedAt: h.finishedAt, requestedBy: h.requestedBy, ...(h.error ? { error: h.error } : {}),
    };
  }

  /** Takes the directory's resync lock for `id`; false while another resync holds it. */
  async lock(dir: string, id: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(this.keys(dir).lock, id, "EX", ttlSeconds, "NX")) === "OK";
  }

  /** Starts fresh progress (listing phase). */
  async begin(dir: string, id: string, requestedBy: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().del(k.progress, k.pending)
      .hset(k.progress, "id", id, "status", "running", "phase", "listing", "total", 0, "done", 0, "created", 0, "updated", 0,
        "deactivated", 0, "deleted", 0, "unchanged", 0, "failed", 0, "startedAt", now(), "requestedBy", requestedBy)
      .exec();
  }

  /** Adds to one counter of the progress (e.g. `deleted` by the listing phase). */
  async count(dir: string, field: "deleted", by: number): Promise<void> {
    await this.redis.hincrby(this.keys(dir).progress, field, by);
  }

  /** Records the resources ("<kind>:<id>") the resync waits for, then enters the reconciling phase. */
  async waitFor(dir: string, members: string[]): Promise<void> {
    const k = this.keys(dir);
    for (let i = 0; i < members.length; i += 1000) await this.redis.sadd(k.pending, ...members.slice(i, i + 1000));
    await this.redis.hset(k.progress, "total", members.length, "phase", "reconciling");
  }

  /** Finishes a resync with nothing to wait for. */
  async finish(dir: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().hset(k.progress, "status", "done", "phase", "done", "finishedAt", now()).del(k.lock).exec();
  }

  /** Ends a resync whose listing phase failed. */
  async fail(dir: string, error: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().hset(k.progress, "status", "done", "phase", "failed", "finishedAt", now(), "error", error).del(k.lock, k.pending).exec();
  }

  /** Counts a settled resource ("<kind>:<id>") toward the running resync, if it waits for it. */
  async settle(dir: string, member: string, outcome: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.eval(SETTLE, 3, k.pending, k.progress, k.lock, member, outcome, now());
  }
}
