/**
 * The deprovision brake of a directory. Entra's provisioning has "accidental deletions prevention" for
 * every cycle and Okta an import safeguard; a misconfigured IdP scope can deactivate or delete thousands of
 * users in a minute. Deprovisions the IdP pushes (active=false, DELETE, removal from scope, which IdPs send
 * as one of those) are counted per directory in a sliding window; past the limit — `safety.deprovisionBrake`,
 * by default the resync safeguard's 500 or 20 % of what the directory manages — SCIM still answers the IdP as
 * usual, but each further deprovision is held before the platform until an operator confirms (all held are
 * applied) or cancels (they stay active on the platform until the IdP changes them again). A re-activation
 * that arrives while its deprovision is held takes it out of the hold.
 *
 * The reconciler asks `gate` before it deprovisions and `clear` when a resource is no deprovision (any
 * other reconcile of it). Deprovisions a resync applies (marked by its drift) are the resync safeguard's,
 * not the brake's; but what an operator released stays released for a resync too. Holds, confirmations and cancellations are audited, logged and shown in `/metrics`
 * (`deprovisions_held{source="brake"}`), on the status page, the admin API and the CLI.
 */
import type { Logger } from "pino";
import type { DirectoryConfig } from "../../config/schema";
import type { RedisConnection } from "../../store/connection";
import type { SyncKind } from "../state/sync-state";
import { BRAKE_SLICE, BrakeStore, type BrakeAuditEntry, type BrakeLimits, type BrakeVerdict, type HeldDeprovision } from "./brake-store";

export type { HeldDeprovision, BrakeAuditEntry } from "./brake-store";

/** A percent limit below this many is not applied: a small directory is not braked by a handful. */
export const BRAKE_MINIMUM = 10;

/** The directory's limits (`safety.deprovisionBrake`, defaults from `safety.maxDeprovisionPerResync`). */
export function brakeLimits(dir: DirectoryConfig): BrakeLimits {
  const b = dir.safety.deprovisionBrake;
  const r = dir.safety.maxDeprovisionPerResync;
  return { windowMs: b.windowSeconds * 1000, max: b.max ?? r.count, percent: b.percent ?? r.percent, minimum: BRAKE_MINIMUM };
}

/** The brake as the reconciler sees it. */
export class DeprovisionBrake {
  private readonly store: BrakeStore;
  constructor(redis: RedisConnection, keyPrefix: string, private readonly logger?: Logger) {
    this.store = new BrakeStore(redis, keyPrefix);
  }

  /**
   * Whether the deprovision of `item` may reach the platform now ("pass"); holds it otherwise. `resync`: a
   * resync re-applies it (its own safeguard asked already): only an operator's release is honoured.
   */
  async gate(dir: DirectoryConfig, item: Omit<HeldDeprovision, "at">, resync = false): Promise<BrakeVerdict> {
    const limits = brakeLimits(dir);
    const verdict = await this.store.admit(dir.id, { ...item, at: new Date().toISOString() }, limits, resync);
    if (verdict === "engaged") {
      const reason = `more than ${limits.max} deprovisions (or ${limits.percent}% of the managed users and groups, when that is at least ${BRAKE_MINIMUM}) pushed within ${limits.windowMs / 1000} s`;
      await this.store.audit(dir.id, { action: "hold", by: "brake", at: new Date().toISOString(), count: 1, reason });
      this.logger?.warn({ directory: dir.id, reason }, "deprovision brake engaged: further IdP deprovisions are held for an operator");
    }
    return verdict;
  }

  /** The resource is not being deprovisioned: a held deprovision of it is cancelled. */
  clear(dir: string, kind: SyncKind, id: string): Promise<void> {
    return this.store.clear(dir, kind, id);
  }
}

/** What the surfaces show of a directory's brake. */
export interface BrakeStatus {
  directory: string;
  /** "holding" while anything is held. */
  state: "holding" | "clear";
  held: number;
  /** Deprovisions counted in the current window. */
  counted: number;
  limits: { windowSeconds: number; max: number; percent: number };
  items: HeldDeprovision[];
  audit: BrakeAuditEntry[];
}

/** The brake of a directory: counts, limits, the held list (first `limit`) and the audit. */
export async function brakeStatus(redis: RedisConnection, keyPrefix: string, dir: DirectoryConfig, limit = 1000): Promise<BrakeStatus> {
  const store = new BrakeStore(redis, keyPrefix);
  const l = brakeLimits(dir);
  const { held, counted } = await store.counts(dir.id, l.windowMs);
  return {
    directory: dir.id, state: held ? "holding" : "clear", held, counted,
    limits: { windowSeconds: l.windowMs / 1000, max: l.max, percent: l.percent },
    items: held ? await store.list(dir.id, limit) : [], audit: await store.auditList(dir.id),
  };
}

/** How many deprovisions the brake holds (for /metrics). */
export async function heldByBrake(redis: RedisConnection, keyPrefix: string, dir: string): Promise<number> {
  return (await new BrakeStore(redis, keyPrefix).counts(dir, 0)).held;
}

export interface BrakeAnswerDeps {
  redis: RedisConnection;
  keyPrefix: string;
  /** Queues a reconcile of a resource of the directory. */
  enqueue(dir: string, kind: SyncKind, id: string): Promise<void>;
  logger?: Logger;
}

export type BrakeAnswer = { answered: true; count: number } | { answered: false; reason: string };

/**
 * An operator's answer, a slice of held items at a time: confirm (each passes the brake once and its
 * reconcile is queued) or cancel (each is released: it stays active on the platform until the IdP changes
 * it again). Audited: who, when, how many.
 */
export async function answerBrake(d: BrakeAnswerDeps, dir: string, action: "confirm" | "cancel", who: string): Promise<BrakeAnswer> {
  const store = new BrakeStore(d.redis, d.keyPrefix);
  let count = 0;
  let cursor = "0";
  do {
    const s = await store.slice(dir, cursor, BRAKE_SLICE);
    cursor = s.next;
    if (action === "confirm") {
      await store.pass(dir, s.items);
      for (const it of s.items) await d.enqueue(dir, it.kind, it.id);
    } else {
      await store.release(dir, s.items);
    }
    count += s.items.length;
  } while (cursor !== "0");
  if (!count) return { answered: false, reason: `the deprovision brake of ${dir} holds nothing` };
  await store.audit(dir, { action, by: who, at: new Date().toISOString(), count });
  d.logger?.warn({ directory: dir, action, by: who, count }, action === "confirm" ? "held deprovisions confirmed" : "held deprovisions cancelled: they stay on the platform");
  return { answered: true, count };
}
