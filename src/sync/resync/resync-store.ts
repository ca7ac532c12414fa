/**
 * What a directory's full resync keeps in Redis (the flow itself: resync.ts and confirm.ts):
 * its progress, the resources it still waits for, its lock, the deprovisions it holds for an operator, the
 * latest dry run's report and the audit of the operators' answers. Every read and write of these keys is here.
 *
 * Keys (built in resync-keys.ts; P = `<keyPrefix>:{<directoryId>}:`, one hash slot per directory):
 *   P resync          HASH    progress of the latest resync: id, status (running | awaiting-confirmation | done),
 *                             phase (listing | reconciling | awaiting-confirmation | deprovisioning | done |
 *                             cancelled | failed), total, done, created, updated, deactivated, deleted, unchanged,
 *                             failed, held, holdReason, firstHoldReason, dropped, startedAt, finishedAt, requestedBy, error (why the listing
 *                             phase failed), confirmedBy, confirmedAt, confirmedCount, cancelledBy, cancelledAt,
 *                             cancelledCount, purpose ("delete": the deprovision run of a directory being deleted)
 *   P resync:pending, resync:lock, resync:held, resync:plan, resync:audit: see resync-keys.ts
 *
 * Each reconcile that settles a pending resource counts its outcome (commands/resyncSettle-3.lua: a resource
 * is counted once however often it settles); the last one marks the resync done. An operator's answer
 * (commands/resyncAnswer-5.lua) is atomic on the progress hash, so a second answer finds nothing to
 * answer. Both scripts receive every key they touch in KEYS.
 */
import type { RedisConnection } from "../../store/connection";
import { ResyncKeys } from "./resync-keys";
import { defineStoreCommands, type StoreCommands } from "../../store/scripts";
import type { SyncKind } from "../state/sync-state";

/** How long a resync's lock lives (a worker that dies mid-resync does not block the directory for longer). */
const LOCK_TTL_S = 6 * 3600;
/** How long a dry run's plan is kept for the operator to read. */
const PLAN_TTL_S = 7 * 24 * 3600;

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
  /** The reason of the hold before re-checks refreshed it. */
  firstHoldReason?: string;
  /** Held items re-checks dropped because the IdP pushed them again (or another directory manages them). */
  dropped: number;
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

/** What a settled resource counts toward: its reconcile's outcome, or "failed". */
export type ResyncOutcome = "created" | "updated" | "deactivated" | "deleted" | "unchanged" | "failed";

/** One resource of a plan. `kind` "embed-group" is an embed-tenant group addressed by name (`id`). */
export interface PlanItem {
  kind: SyncKind | "embed-group";
  id: string;
  /** The platform's id of it (workforce user/group, embed-tenant group). */
  platformId?: string;
  /** userName / displayName / embed group name, for people reading the plan. */
  name?: string;
}

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

/** One entry of the audit list. */
export interface ResyncAuditEntry {
  /** "hold": the resync (manual or scheduled, `by` who asked) held its deprovisions, `reason` why. */
  action: "confirm" | "cancel" | "hold";
  resync: string;
  by: string;
  at: string;
  count: number;
  /** Held items a confirmation's re-check dropped (the IdP pushed them again). */
  dropped?: number;
  reason?: string;
}

/**
 * What became of an operator's answer: `answered` (the resync and how many deprovisions it held),
 * `not-awaiting` (the latest resync's status, "" when there is none) or `other-awaiting` (the id of the
 * resync that awaits confirmation instead of the one expected).
 */
export type ResyncAnswer =
  | { result: "answered"; resync: string; count: number }
  | { result: "not-awaiting"; status: string }
  | { result: "other-awaiting"; resync: string };



/** A directory's resync progress, pending set, lock, held deprovisions, dry-run report and audit list. */
export class ResyncStore {
  private readonly redis: RedisConnection & StoreCommands;

  constructor(redis: RedisConnection, private readonly keyPrefix: string) {
    // EVALSHA: resyncSettle runs after every reconcile, resync or not
    this.redis = defineStoreCommands(redis);
  }

  keys(dir: string): ResyncKeys {
    return new ResyncKeys(this.keyPrefix, dir);
  }

  /** The progress of the directory's latest resync (zeros and nothing else when it never had one). */
  async progress(dir: string): Promise<ResyncProgress> {
    const h = await this.redis.hgetall(this.keys(dir).progress);
    const n = (k: string) => Number(h[k] ?? 0);
    const opt = (k: string) => (h[k] ? { [k]: h[k] } : {});
    const optN = (k: string) => (h[k] ? { [k]: Number(h[k]) } : {});
    return {
      id: h.id, status: h.status as ResyncProgress["status"], phase: h.phase, total: n("total"), done: n("done"), created: n("created"),
      updated: n("updated"), deactivated: n("deactivated"), deleted: n("deleted"), unchanged: n("unchanged"), failed: n("failed"), held: n("held"), dropped: n("dropped"),
      startedAt: h.startedAt, finishedAt: h.finishedAt, requestedBy: h.requestedBy, ...opt("error"), ...opt("holdReason"), ...opt("firstHoldReason"),
      ...opt("confirmedBy"), ...opt("confirmedAt"), ...optN("confirmedCount"), ...opt("cancelledBy"), ...opt("cancelledAt"), ...optN("cancelledCount"), ...opt("purpose"),
    };
  }

  /** The latest resync's status (undefined: none yet). */
  async status(dir: string): Promise<ResyncProgress["status"]> {
    return ((await this.redis.hget(this.keys(dir).progress, "status")) ?? undefined) as ResyncProgress["status"];
  }

  /** The latest resync's id (undefined: none yet). */
  async latestId(dir: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys(dir).progress, "id")) ?? undefined;
  }

  /** The latest resync's purpose: "delete" for the deprovision run of a directory being deleted. */
  async purpose(dir: string): Promise<ResyncProgress["purpose"]> {
    return ((await this.redis.hget(this.keys(dir).progress, "purpose")) ?? undefined) as ResyncProgress["purpose"];
  }

  /** True once an operator confirmed the latest resync and it is the deprovision run of a directory being deleted. */
  async deleteConfirmed(dir: string): Promise<boolean> {
    const [purpose, confirmedAt] = await this.redis.hmget(this.keys(dir).progress, "purpose", "confirmedAt");
    return purpose === "delete" && !!confirmedAt;
  }

  /** Takes the directory's resync lock for resync `id`; false when another resync holds it. */
  async lock(dir: string, id: string): Promise<boolean> {
    return (await this.redis.set(this.keys(dir).lock, id, "EX", LOCK_TTL_S, "NX")) !== null;
  }

  /** Starts resync `id` afresh: progress reset to zeros (status running, phase listing), nothing pending or held (one MULTI). */
  async begin(dir: string, id: string, requestedBy: string, purpose?: "delete"): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().unlink(k.progress, k.pending, k.held)
      .hset(k.progress, "id", id, "status", "running", "phase", "listing", "total", 0, "done", 0, "created", 0, "updated", 0,
        "deactivated", 0, "deleted", 0, "unchanged", 0, "failed", 0, "held", 0, "startedAt", new Date().toISOString(), "requestedBy", requestedBy,
        ...(purpose ? ["purpose", purpose] : []))
      .exec();
  }

  /** Sets the running resync's phase. */
  async setPhase(dir: string, phase: string): Promise<void> {
    await this.redis.hset(this.keys(dir).progress, "phase", phase);
  }

  /** Adds members ("<kind>:<id>", distinct) to what the running resync waits for, and their number to its total. */
  async addPending(dir: string, members: string[]): Promise<void> {
    const k = this.keys(dir);
    for (let i = 0; i < members.length; i += 1000) await this.redis.sadd(k.pending, ...members.slice(i, i + 1000));
    if (members.length) await this.redis.hincrby(k.progress, "total", members.length);
  }

  /** Counts `n` resources the plan found unchanged (no reconcile queued): each one total, done and unchanged. */
  async countUnchanged(dir: string, n: number): Promise<void> {
    const k = this.keys(dir).progress;
    await this.redis.multi().hincrby(k, "total", n).hincrby(k, "done", n).hincrby(k, "unchanged", n).exec();
  }

  /** Counts `n` deletions made by the resync itself (embed-tenant groups), not by a reconcile. */
  async countDeleted(dir: string, n: number): Promise<void> {
    await this.redis.hincrby(this.keys(dir).progress, "deleted", n);
  }

  /**
   * Holds the plan's deprovisions for an operator's confirmation: the resync turns awaiting-confirmation, and
   * the hold is audited (who asked for the resync: an operator or "schedule").
   */
  async hold(dir: string, items: PlanItem[], reason: string, resync = "", by = ""): Promise<void> {
    const k = this.keys(dir);
    for (let i = 0; i < items.length; i += 1000) {
      await this.redis.hset(k.held, ...items.slice(i, i + 1000).flatMap((it) => [`${it.kind}:${it.id}`, JSON.stringify(it)]));
    }
    const entry: ResyncAuditEntry = { action: "hold", resync, by, at: new Date().toISOString(), count: items.length, reason };
    await this.redis.multi().hset(k.progress, "status", "awaiting-confirmation", "held", items.length, "holdReason", reason)
      .lpush(k.audit, JSON.stringify(entry)).ltrim(k.audit, 0, 99).exec();
  }

  /** Ends the running resync as failed (`error`), letting go of its lock, pending set and held items (one MULTI). */
  async fail(dir: string, error: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().hset(k.progress, "status", "done", "phase", "failed", "finishedAt", new Date().toISOString(), "error", error)
      .unlink(k.lock, k.pending, k.held).exec();
  }

  /**
   * Counts a settled resource toward the running resync if it waits for `member` ("<kind>:<id>"; once: a
   * second settle of it counts nothing); the last one finishes the resync (resyncSettle-3.lua).
   */
  async settle(dir: string, member: string, outcome: ResyncOutcome): Promise<void> {
    const k = this.keys(dir);
    await this.redis.resyncSettle(k.pending, k.progress, k.lock, member, outcome, new Date().toISOString(), "0");
  }

  /** Settles the marker a confirmation of resync `resyncId` added (counting nothing): its held items are all queued. */
  async settleConfirmation(dir: string, resyncId: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.resyncSettle(k.pending, k.progress, k.lock, `confirm:${resyncId}`, "", new Date().toISOString(), "0");
  }

  /** Finishes a resync with nothing left pending: done, or awaiting confirmation when it holds deprovisions (resyncSettle-3.lua). */
  async checkFinished(dir: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.resyncSettle(k.pending, k.progress, k.lock, "-", "", new Date().toISOString(), "1");
  }

  /**
   * An operator's confirmation or cancellation of the held deprovisions (resyncAnswer-5.lua: atomic, audited); `expectId`:
   * only if that resync is the one awaiting it ("" any).
   */
  async answer(dir: string, action: "confirm" | "cancel", who: string, expectId = "", dropped = 0): Promise<ResyncAnswer> {
    const k = this.keys(dir);
    const res = await this.redis.resyncAnswer(k.progress, k.pending, k.lock, k.audit, k.held, action, who, new Date().toISOString(), String(LOCK_TTL_S), expectId, String(dropped));
    if (res[0] === 0) return { result: "not-awaiting", status: res[1] };
    if (res[0] === -1) return { result: "other-awaiting", resync: res[1] };
    return { result: "answered", resync: res[1], count: Number(res[2]) };
  }

  /** The first `limit` deprovisions held for an operator, sorted by kind and name (HSCAN). */
  async held(dir: string, limit = 10000): Promise<PlanItem[]> {
    const out: PlanItem[] = [];
    let cursor = "0";
    do {
      const [next, flat] = await this.redis.hscan(this.keys(dir).held, cursor, "COUNT", 1000);
      for (let i = 1; i < flat.length; i += 2) out.push(JSON.parse(flat[i]) as PlanItem);
      cursor = next;
    } while (cursor !== "0" && out.length < limit);
    return out.slice(0, limit).sort((a, b) => `${a.kind}:${a.name ?? a.id}`.localeCompare(`${b.kind}:${b.name ?? b.id}`));
  }

  /** Forgets the held deprovisions (once a confirmation queued them), freed off Redis's main thread. */
  async dropHeld(dir: string): Promise<void> {
    await this.redis.unlink(this.keys(dir).held);
  }

  /** Stores a dry run's report (kept 7 days), replacing the previous one. */
  async savePlan(dir: string, report: PlanReport): Promise<void> {
    await this.redis.set(this.keys(dir).plan, JSON.stringify(report), "EX", PLAN_TTL_S);
  }

  /** The latest dry run's report (undefined: none, or it expired). */
  async plan(dir: string): Promise<PlanReport | undefined> {
    const raw = await this.redis.get(this.keys(dir).plan);
    return raw ? (JSON.parse(raw) as PlanReport) : undefined;
  }

  /** The latest confirmations and cancellations (up to 100), newest first. */
  async audit(dir: string): Promise<ResyncAuditEntry[]> {
    return (await this.redis.lrange(this.keys(dir).audit, 0, 99)).map((s) => JSON.parse(s) as ResyncAuditEntry);
  }
}
