/**
 * Full resync of one directory. It computes a plan (`resync-plan.ts`: the platform side listed and compared
 * with the desired state and the sync state) and applies it:
 *   - missing: the bridge knows a platform id the platform no longer has → re-created;
 *   - changed: the platform's copy differs from what the bridge applied → re-applied;
 *   - created by the bridge (externalId `<directory>:<id>`, or a tracked embed group) and no longer in the
 *     IdP → deactivated / deleted.
 * Every desired resource is then reconciled (deduplicated jobs, so never twice at once with the normal
 * flow), except the workforce users the plan found in step (their reconcile would make no call and write
 * nothing): they count as unchanged at once, so a resync with no drift makes no write call and no job per user.
 *
 * The deprovisioning safeguard: a plan that would deprovision more than the directory's
 * `safety.maxDeprovisionPerResync`, or anything while its store holds no user, applies its creates and
 * updates and holds the deprovisions (`<P>resync:held`) in the status `awaiting-confirmation` until an
 * operator confirms (`resync-confirm.ts`; audited; re-checked against the present: `resync-recheck.ts`) or
 * cancels. Every hold is audited, logged and counted in `/metrics` (`deprovisions_held`), a scheduled one too. A dry run computes the plan, stores its
 * report (`<P>resync:plan`) and writes nothing else.
 *
 * A resync takes the directory's lock (two resyncs of a directory never overlap), resets its progress and
 * adds every resource it queues to its pending set. Each reconcile that settles one of them counts its
 * outcome (src/sync/processor.ts); the last one marks the resync done. Progress, pending set, lock, held
 * deprovisions, dry-run report and audit are kept by `ResyncStore` (src/sync/resync/resync-store.ts).
 */
import { randomUUID } from "node:crypto";
import { type SyncKind } from "../state/sync-state";
import { ResyncHeld } from "./resync-held";
import { ResyncStore, type PlanReport, type ResyncProgress } from "./resync-store";
import { isNotFound } from "../context";
import { HeldRecheck } from "./recheck";
import { withEmptyDesiredState } from "../deleting/empty-desired";
import { computePlan, deleteHoldReason, holdReason, type DriftMark, type PlanDeps, type PlanItem } from "./plan";

export type { PlanReport, ResyncProgress } from "./resync-store";

/** Reconciles enqueued at once while a resync queues. */
const BATCH = 500;

/** Percent done; a finished resync with nothing to do (total 0) is complete, not at 0% (a failed one is not). */
export function resyncPercent(p: ResyncProgress): number {
  if (p.total) return Math.floor((p.done / p.total) * 100);
  return p.status === "done" && p.phase === "done" ? 100 : 0;
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

/** Items per list of a stored plan (counts are always whole). */
export const PLAN_LIST_MAX = 10000;

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
  await new ResyncStore(c.redis, c.keyPrefix).savePlan(c.dir.id, report);
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
    // the drift mark tells the reconcile this deprovision is the resync's (its safeguard, not the deprovision brake)
    if (c.dir.target === "workforce") {
      await c.state.update(c.dir.id, it.kind, it.id, it.kind === "user" ? { platformId: it.platformId, drift: "changed" } : { platformId: it.platformId });
    } else if (it.kind === "user") {
      await c.state.update(c.dir.id, "user", it.id, { drift: "changed" });
    }
    work.push([it.kind, it.id]);
  }
  return { work, deleted };
}

/** Adds `work` to the running resync's pending set and total, and queues it. */
async function queueWork(c: ResyncDeps, work: Array<[SyncKind, string]>): Promise<void> {
  const unique = [...new Map(work.map((w) => [`${w[0]}:${w[1]}`, w])).values()];
  await new ResyncStore(c.redis, c.keyPrefix).addPending(c.dir.id, unique.map(([kind, rid]) => `${kind}:${rid}`));
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
  const store = new ResyncStore(c.redis, c.keyPrefix);
  // a delete with platform=deprovision: the desired state is empty, and the plan always waits for the operator
  const deleting = !!r.deprovision;
  const id = r.deprovision ?? randomUUID();
  if ((await store.status(dir)) === "awaiting-confirmation") return false;
  if (!(await store.lock(dir, id))) return false;
  try {
    await store.begin(dir, id, r.requestedBy, deleting ? "delete" : undefined);
    const plan = await computePlan(deleting ? withEmptyDesiredState(c) : c);
    await applyMarks(c, plan.marks);
    // deleting: nothing is reconciled before the operator confirms
    const work = deleting ? [] : [...plan.work];
    const hold = deleting ? deleteHoldReason(dir, plan) : holdReason(plan, c.dir.safety.maxDeprovisionPerResync);
    if (hold) {
      // audited and logged alike whether an operator or the schedule asked: nobody watches a scheduled one
      await store.hold(dir, plan.deprovision, hold, id, r.requestedBy);
      c.logger.warn({ directory: dir, resync: id, requestedBy: r.requestedBy, held: plan.deprovision.length, reason: hold }, "resync holds its deprovisions for an operator's confirmation");
    } else {
      const d = await deprovisionItems(c, plan.deprovision);
      if (d.deleted) await store.countDeleted(dir, d.deleted);
      work.push(...d.work);
    }
    // the users the plan found in step are settled now, unchanged, with no reconcile of their own
    if (!deleting && plan.skipped.size) await store.countUnchanged(dir, plan.skipped.size);
    const unique = new Set(work.map((w) => `${w[0]}:${w[1]}`));
    if (unique.size === 0) {
      await store.checkFinished(dir);
      return true;
    }
    await store.setPhase(dir, "reconciling");
    await queueWork(c, work);
    return true;
  } catch (err) {
    await store.fail(dir, (err as Error).message);
    throw err;
  }
}

/**
 * The worker's half of a confirmation: a slice of held items at a time, re-checks them against the present
 * (what the IdP pushed again since the answer is dropped), deprovisions the rest and queues their
 * reconciles, then forgets the slice; a retried job goes on with what is still held.
 */
async function applyConfirmed(c: ResyncDeps, resyncId: string): Promise<void> {
  const dir = c.dir.id;
  const store = new ResyncStore(c.redis, c.keyPrefix);
  if ((await store.latestId(dir)) !== resyncId) return;
  const deleting = (await store.purpose(dir)) === "delete";
  // a directory being deleted was paused for the operator's answer: its deprovisions may be admitted now
  if (deleting) await c.state.setMeta(c.dir.id, { paused: undefined, pausedAt: undefined });
  const held = new ResyncHeld(c.redis, c.keyPrefix);
  // a directory being deleted deprovisions everything it manages: its desired state is empty on purpose
  const check = deleting ? undefined : new HeldRecheck({ redis: c.redis, keyPrefix: c.keyPrefix, dir: c.dir });
  let dropped = 0;
  let cursor = "0";
  do {
    const s = await held.slice(dir, cursor);
    cursor = s.next;
    const { keep, drop } = check ? await check.split(s.items) : { keep: s.items, drop: [] };
    await held.remove(dir, drop);
    dropped += drop.length;
    // a failure is retried by the job (embed-group deletes that went through answer 404 then; reconciles are idempotent)
    const d = await deprovisionItems(c, keep);
    if (d.deleted) await store.countDeleted(dir, d.deleted);
    await queueWork(c, d.work);
    await held.remove(dir, keep);
  } while (cursor !== "0");
  if (dropped) {
    await held.refresh(dir, dropped, (first) => `${dropped} more held deprovision(s) dropped by the worker's re-check at ${new Date().toISOString()}; first held because: ${first}`, false);
    c.logger.warn({ directory: dir, resync: resyncId, dropped }, "confirmed resync: held deprovisions the IdP pushed again since were dropped");
  }
  await store.dropHeld(dir);
  // the confirmation's own marker: the resync may finish once every held item has settled
  await store.settleConfirmation(dir, resyncId);
}
