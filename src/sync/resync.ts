/**
 * Full resync of one directory. It computes a plan (`resync-plan.ts`: the platform side listed and compared
 * with the desired state and the sync state) and applies it:
 *   - missing: the bridge knows a platform id the platform no longer has → re-created;
 *   - changed: the platform's copy differs from what the bridge applied → re-applied;
 *   - created by the bridge (externalId `<directory>:<id>`, or a tracked embed group) and no longer in the
 *     IdP → deactivated / deleted.
 * Every desired resource is then reconciled (deduplicated jobs, so never twice at once with the normal
 * flow); unchanged ones make no call, so a resync with no drift makes no write call.
 *
 * The deprovisioning safeguard (issue 9): a plan that would deprovision more than the directory's
 * `safety.maxDeprovisionPerResync`, or anything while its store holds no user, applies its creates and
 * updates and holds the deprovisions (`<P>resync:held`) in the status `awaiting-confirmation` until an
 * operator confirms (`resync-confirm.ts`; audited) or cancels. A dry run computes the plan, stores its
 * report (`<P>resync:plan`) and writes nothing else.
 *
 * Progress lives in `<P>resync` (HASH: id, status, phase, total, done, created, updated, deactivated,
 * deleted, unchanged, failed, held, holdReason, startedAt, finishedAt, requestedBy, error, confirmedBy,
 * confirmedAt, confirmedCount, cancelledBy, cancelledAt, cancelledCount); the resources it still waits for
 * in `<P>resync:pending` (SET of "<kind>:<id>"). Each reconcile that settles one of them counts its
 * outcome; the last one marks the resync done. `<P>resync:lock` keeps two resyncs of a directory from
 * overlapping; `<P>resync:audit` (LIST, newest first, 100 kept) records confirmations and cancellations.
 */
import { randomUUID } from "node:crypto";
import { ResyncKeys, type RedisConnection, type SyncKind } from "../store";
import { isNotFound, type Outcome } from "./context";
import { withEmptyDesiredState } from "./empty-desired";
import { computePlan, deleteHoldReason, holdReason, type DriftMark, type PlanDeps, type PlanItem } from "./resync-plan";

export const LOCK_TTL_S = 6 * 3600;
/** Reconciles enqueued at once while a resync queues. */
const BATCH = 500;

/*
  KEYS[1] pending set, KEYS[2] progress hash, KEYS[3] lock
  ARGV[1] "<kind>:<id>", ARGV[2] outcome field ("" counts nothing), ARGV[3] now, ARGV[4] "1": only check whether it is finished
  Counts one settled resource if the running resync waits for it; on the last one the resync is done, or,
  when it holds deprovisions for an operator, stays awaiting-confirmation (phase too) without its lock.
*/
export const SETTLE = `
if ARGV[4] ~= '1' then
  if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end
  if ARGV[2] ~= '' then
    redis.call('HINCRBY', KEYS[2], 'done', 1)
    redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
  end
end
if redis.call('SCARD', KEYS[1]) == 0 then
  local st = redis.call('HGET', KEYS[2], 'status')
  if st == 'awaiting-confirmation' then
    redis.call('HSET', KEYS[2], 'phase', 'awaiting-confirmation')
    redis.call('DEL', KEYS[3])
  elseif st == 'running' then
    redis.call('HSET', KEYS[2], 'status', 'done', 'phase', 'done', 'finishedAt', ARGV[3])
    redis.call('DEL', KEYS[3])
  end
end
return 1`;

/** Keys of a directory's resync. */
export function resyncKeys(keyPrefix: string, dir: string): ResyncKeys {
  return new ResyncKeys(keyPrefix, dir);
}

/** Progress of the latest resync of a directory, as stored (numbers parsed). */
export interface ResyncProgress {
  id?: string;
  status?: "running" | "awaiting-confirmation" | "done";
  phase?: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  deactivated: number;
  deleted: number;
  unchanged: number;
  failed: number;
  /** Deprovisions held for an operator's confirmation. */
  held: number;
  holdReason?: string;
  startedAt?: string;
  finishedAt?: string;
  requestedBy?: string;
  /** Why the listing phase failed (phase "failed"). */
  error?: string;
  confirmedBy?: string;
  confirmedAt?: string;
  confirmedCount?: number;
  cancelledBy?: string;
  cancelledAt?: string;
  cancelledCount?: number;
  /** "delete": the deprovision run of a directory deleted with `platform=deprovision`. */
  purpose?: "delete";
}

/** Reads a directory's resync progress. */
export async function readResync(redis: RedisConnection, keyPrefix: string, dir: string): Promise<ResyncProgress> {
  const h = await redis.hgetall(resyncKeys(keyPrefix, dir).progress);
  const n = (k: string) => Number(h[k] ?? 0);
  const opt = (k: string) => (h[k] ? { [k]: h[k] } : {});
  const optN = (k: string) => (h[k] ? { [k]: Number(h[k]) } : {});
  return {
    id: h.id, status: h.status as ResyncProgress["status"], phase: h.phase, total: n("total"), done: n("done"), created: n("created"),
    updated: n("updated"), deactivated: n("deactivated"), deleted: n("deleted"), unchanged: n("unchanged"), failed: n("failed"), held: n("held"),
    startedAt: h.startedAt, finishedAt: h.finishedAt, requestedBy: h.requestedBy, ...opt("error"), ...opt("holdReason"),
    ...opt("confirmedBy"), ...opt("confirmedAt"), ...optN("confirmedCount"), ...opt("cancelledBy"), ...opt("cancelledAt"), ...optN("cancelledCount"), ...opt("purpose"),
  };
}

/** Percent done; a finished resync with nothing to do (total 0) is complete, not at 0% (a failed one is not). */
export function resyncPercent(p: ResyncProgress): number {
  if (p.total) return Math.floor((p.done / p.total) * 100);
  return p.status === "done" && p.phase === "done" ? 100 : 0;
}

/** Counts a settled reconcile toward the running resync, if it waits for that resource. */
export async function settleResync(redis: RedisConnection, keyPrefix: string, dir: string, kind: SyncKind, id: string, outcome: Outcome | "failed"): Promise<void> {
  const k = resyncKeys(keyPrefix, dir);
  await redis.eval(SETTLE, 3, k.pending, k.progress, k.lock, `${kind}:${id}`, outcome, new Date().toISOString(), "0");
}

interface ResyncDeps extends PlanDeps {}

/** What a resync job asks for. */
export interface ResyncRequest {
  requestedBy: string;
  /** Compute the plan, store it under this id and write nothing else. */
  dryRun?: string;
  /** Apply the deprovisions the operator confirmed for the resync of this id. */
  confirm?: string;
  /** Without `confirm`: plan the deprovision run of a directory being deleted, under this resync id. */
  deprovision?: string;
}

/** How long a dry run's plan is kept for the operator to read. */
const PLAN_TTL_S = 7 * 24 * 3600;
/** Items per list of a stored plan (counts are always whole). */
export const PLAN_LIST_MAX = 10000;

/** A dry run's report, as stored and answered. */
export interface PlanReport {
  id: string;
  directory: string;
  requestedBy: string;
  at: string;
  counts: { create: number; update: number; unchanged: number; deprovision: number; managed: number; storeUsers: number };
  /** Why this plan would wait for an operator before deprovisioning (absent: it would not). */
  wouldHold?: string;
  create: PlanItem[];
  update: PlanItem[];
  deprovision: PlanItem[];
  truncated: boolean;
}

/** Runs a dry run: computes the plan and stores its report; writes nothing else. */
async function dryRun(c: ResyncDeps, planId: string, requestedBy: string): Promise<void> {
  const plan = await computePlan(c);
  const cut = <T>(xs: T[]) => xs.slice(0, PLAN_LIST_MAX);
  const report: PlanReport = {
    id: planId, directory: c.dir.id, requestedBy, at: new Date().toISOString(),
    counts: { create: plan.create.length, update: plan.update.length, unchanged: plan.unchanged, deprovision: plan.deprovision.length, managed: plan.managed, storeUsers: plan.storeUsers },
    ...(holdReason(plan, c.dir.safety.maxDeprovisionPerResync) ? { wouldHold: holdReason(plan, c.dir.safety.maxDeprovisionPerResync) } : {}),
    create: cut(plan.create), update: cut(plan.update), deprovision: cut(plan.deprovision),
    truncated: [plan.create, plan.update, plan.deprovision].some((l) => l.length > PLAN_LIST_MAX),
  };
  await c.redis.set(resyncKeys(c.keyPrefix, c.dir.id).plan, JSON.stringify(report), "EX", PLAN_TTL_S);
}

/** Reads the latest dry run's report of a directory. */
export async function readPlan(redis: RedisConnection, keyPrefix: string, dir: string): Promise<PlanReport | undefined> {
  const raw = await redis.get(resyncKeys(keyPrefix, dir).plan);
  return raw ? (JSON.parse(raw) as PlanReport) : undefined;
}

/** Writes the drift marks of a plan. */
async function applyMarks(c: ResyncDeps, marks: DriftMark[]): Promise<void> {
  for (const m of marks) {
    await c.state.update(c.dir.id, m.kind, m.id, m.fields);
    for (const g of m.leaveGroups ?? []) await c.state.applyMembers(c.state.appliedMembersKey(c.dir.id, g), [], [m.id]);
  }
}

/**
 * Deprovisions now what a plan would deprovision: embed-tenant groups are deleted here (their members left
 * them already); users and groups get the platform id to act on and are returned to be reconciled.
 */
export async function deprovisionItems(c: ResyncDeps, items: PlanItem[]): Promise<{ work: Array<[SyncKind, string]>; deleted: number }> {
  const work: Array<[SyncKind, string]> = [];
  let deleted = 0;
  for (const it of items) {
    if (it.kind === "embed-group") {
      try {
        await c.platform.embed.deleteGroup(c.dir.embed!.tenantName, Number(it.platformId));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      await c.state.untrackEmbedGroup(c.dir.id, it.id);
      deleted++;
      continue;
    }
    if (c.dir.target === "workforce") {
      await c.state.update(c.dir.id, it.kind, it.id, it.kind === "user" ? { platformId: it.platformId, drift: "changed" } : { platformId: it.platformId });
    }
    work.push([it.kind, it.id]);
  }
  return { work, deleted };
}

/** Adds `work` to the running resync's pending set and total, and queues it. */
async function queueWork(c: ResyncDeps, work: Array<[SyncKind, string]>): Promise<void> {
  const k = resyncKeys(c.keyPrefix, c.dir.id);
  const unique = [...new Map(work.map((w) => [`${w[0]}:${w[1]}`, w])).values()];
  for (let i = 0; i < unique.length; i += 1000) {
    await c.redis.sadd(k.pending, ...unique.slice(i, i + 1000).map(([kind, rid]) => `${kind}:${rid}`));
  }
  if (unique.length) await c.redis.hincrby(k.progress, "total", unique.length);
  // enqueued BATCH at a time (one Redis pipeline each) rather than one round trip per resource
  for (let i = 0; i < unique.length; i += BATCH) await Promise.all(unique.slice(i, i + BATCH).map(([kind, rid]) => c.enqueue(kind, rid)));
}

/**
 * Runs the listing phase of a full resync and queues every resource; the reconciles finish it. A plan past
 * the directory's safeguard queues its creates and updates only and holds its deprovisions for an
 * operator (status `awaiting-confirmation`). Returns false when another resync of the directory is still
 * running or awaits confirmation.
 */
export async function startResync(c: ResyncDeps, req: ResyncRequest | string): Promise<boolean> {
  const r: ResyncRequest = typeof req === "string" ? { requestedBy: req } : req;
  if (r.dryRun) { await dryRun(c, r.dryRun, r.requestedBy); return true; }
  if (r.confirm) { await applyConfirmed(c, r.confirm); return true; }
  const dir = c.dir.id;
  const k = resyncKeys(c.keyPrefix, dir);
  // a delete with platform=deprovision: the desired state is empty, and the plan always waits for the operator
  const deleting = !!r.deprovision;
  const id = r.deprovision ?? randomUUID();
  if ((await c.redis.hget(k.progress, "status")) === "awaiting-confirmation") return false;
  if (!(await c.redis.set(k.lock, id, "EX", LOCK_TTL_S, "NX"))) return false;
  try {
    await c.redis.multi().del(k.progress, k.pending, k.held)
      .hset(k.progress, "id", id, "status", "running", "phase", "listing", "total", 0, "done", 0, "created", 0, "updated", 0,
        "deactivated", 0, "deleted", 0, "unchanged", 0, "failed", 0, "held", 0, "startedAt", new Date().toISOString(), "requestedBy", r.requestedBy,
        ...(deleting ? ["purpose", "delete"] : []))
      .exec();
    const plan = await computePlan(deleting ? withEmptyDesiredState(c) : c);
    await applyMarks(c, plan.marks);
    // deleting: nothing is reconciled before the operator confirms
    const work = deleting ? [] : [...plan.work];
    const hold = deleting ? deleteHoldReason(dir, plan) : holdReason(plan, c.dir.safety.maxDeprovisionPerResync);
    if (hold) {
      for (let i = 0; i < plan.deprovision.length; i += 1000) {
        await c.redis.hset(k.held, ...plan.deprovision.slice(i, i + 1000).flatMap((it) => [`${it.kind}:${it.id}`, JSON.stringify(it)]));
      }
      await c.redis.hset(k.progress, "status", "awaiting-confirmation", "held", plan.deprovision.length, "holdReason", hold);
      c.logger.warn({ directory: dir, held: plan.deprovision.length, reason: hold }, "resync holds its deprovisions for an operator's confirmation");
    } else {
      const d = await deprovisionItems(c, plan.deprovision);
      if (d.deleted) await c.redis.hincrby(k.progress, "deleted", d.deleted);
      work.push(...d.work);
    }
    const unique = new Set(work.map((w) => `${w[0]}:${w[1]}`));
    if (unique.size === 0) {
      await finishIfIdle(c);
      return true;
    }
    await c.redis.hset(k.progress, "phase", "reconciling");
    await queueWork(c, work);
    return true;
  } catch (err) {
    await c.redis.multi().hset(k.progress, "status", "done", "phase", "failed", "finishedAt", new Date().toISOString(), "error", (err as Error).message).del(k.lock, k.pending, k.held).exec();
    throw err;
  }
}

/** Ends a resync with nothing left pending: done, or waiting for the operator when it holds deprovisions. */
async function finishIfIdle(c: ResyncDeps): Promise<void> {
  const k = resyncKeys(c.keyPrefix, c.dir.id);
  await c.redis.eval(SETTLE, 3, k.pending, k.progress, k.lock, "-", "", new Date().toISOString(), "1");
}

/** The worker's half of a confirmation: deprovisions what was held and queues the reconciles. */
async function applyConfirmed(c: ResyncDeps, resyncId: string): Promise<void> {
  const k = resyncKeys(c.keyPrefix, c.dir.id);
  if ((await c.redis.hget(k.progress, "id")) !== resyncId) return;
  const held = Object.values(await c.redis.hgetall(k.held)).map((v) => JSON.parse(v) as PlanItem);
  // a directory being deleted was paused for the operator's answer: its deprovisions may be admitted now
  if ((await c.redis.hget(k.progress, "purpose")) === "delete") await c.state.setMeta(c.dir.id, { paused: undefined, pausedAt: undefined });
  // a failure is retried by the job (embed-group deletes that went through answer 404 then; reconciles are idempotent)
  const d = await deprovisionItems(c, held);
  if (d.deleted) await c.redis.hincrby(k.progress, "deleted", d.deleted);
  await queueWork(c, d.work);
  await c.redis.del(k.held);
  // the confirmation's own marker: the resync may finish once every held item has settled
  await c.redis.eval(SETTLE, 3, k.pending, k.progress, k.lock, `confirm:${resyncId}`, "", new Date().toISOString(), "0");
}
