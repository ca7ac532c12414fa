/**
 * What a directory's deprovision brake (brake.ts) keeps in Redis, and every read and write of it.
 *
 * Keys (P = `<keyPrefix>:{<directoryId>}:`, one hash slot per directory):
 *   P brake:window    ZSET  "<kind>:<id>" -> ms: deprovisions counted in the sliding window (≤ the limit's worth)
 *   P brake:held      HASH  "<kind>:<id>" -> held item (JSON): deprovisions held for an operator
 *   P brake:released  HASH  "<kind>:<id>" -> desired-state version an operator let stay (cancel)
 *   P brake:pass      HASH  "<kind>:<id>" -> "1": confirmed by an operator, passes the brake once
 *   P brake:audit     LIST  holds, confirmations and cancellations (JSON), newest first, 100 kept
 * A resource the brake knows of (held, released, passing) carries `bk` in its sync-state hash, so a reconcile
 * asks the brake to forget it only then. The gate is one script (commands/brakeAdmit-6.lua) that receives
 * every key it touches in KEYS.
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryKeys } from "../../store";
import { SyncStateKeys } from "../state/sync-state-keys";
import { type SyncKind } from "../state/sync-state";
import { defineStoreCommands } from "../../store/scripts";

/** Held items read or moved per call. */
export const BRAKE_SLICE = 500;

/** One deprovision the brake holds. */
export interface HeldDeprovision {
  kind: SyncKind;
  id: string;
  /** "deactivate" (active=false, removal from scope) or "delete" (SCIM DELETE). */
  action: "deactivate" | "delete";
  /** userName (or the platform id / external id when the store no longer has it), for people reading the list. */
  name?: string;
  platformId?: string;
  /** Version of the desired state it applies (what a cancel lets stay until the IdP changes it). */
  version: string;
  at: string;
}

/** One entry of the brake's audit list. */
export interface BrakeAuditEntry {
  action: "hold" | "confirm" | "cancel";
  by: string;
  at: string;
  count: number;
  reason?: string;
}

/** What the gate decided. */
export type BrakeVerdict = "pass" | "held" | "engaged" | "released";

export interface BrakeLimits {
  windowMs: number;
  max: number;
  percent: number;
  /** Smallest percent limit applied. */
  minimum: number;
}

export class BrakeKeys {
  readonly window: string;
  readonly held: string;
  readonly released: string;
  readonly pass: string;
  readonly audit: string;
  readonly synced: string;
  private readonly state: SyncStateKeys;
  constructor(keyPrefix: string, dir: string) {
    const p = new DirectoryKeys(keyPrefix, dir).prefix;
    this.window = `${p}brake:window`;
    this.held = `${p}brake:held`;
    this.released = `${p}brake:released`;
    this.pass = `${p}brake:pass`;
    this.audit = `${p}brake:audit`;
    this.state = new SyncStateKeys(keyPrefix, dir);
    this.synced = this.state.status("synced");
  }

  /** The sync-state hash of a resource (its `bk` field). */
  record(kind: SyncKind, id: string): string {
    return this.state.record(kind, id);
  }
}

export class BrakeStore {
  private readonly redis: ReturnType<typeof defineStoreCommands>;
  constructor(redis: RedisConnection, private readonly keyPrefix: string) {
    this.redis = defineStoreCommands(redis);
  }

  keys(dir: string): BrakeKeys {
    return new BrakeKeys(this.keyPrefix, dir);
  }

  /** The gate: counts one deprovision, or holds it (brakeAdmit-6.lua). */
  admit(dir: string, item: HeldDeprovision, limits: BrakeLimits, bypass = false): Promise<BrakeVerdict> {
    const k = this.keys(dir);
    return this.redis.brakeAdmit(k.window, k.held, k.released, k.pass, k.synced, k.record(item.kind, item.id), `${item.kind}:${item.id}`, String(Date.now()),
      String(limits.windowMs), String(limits.max), String(limits.percent), String(limits.minimum), JSON.stringify(item), item.version, bypass ? "1" : "0");
  }

  /** The resource is no deprovision any more (re-activated): its held item, release and pass go (one MULTI). */
  async clear(dir: string, kind: SyncKind, id: string): Promise<void> {
    const k = this.keys(dir);
    const m = `${kind}:${id}`;
    await this.redis.multi().hdel(k.held, m).hdel(k.released, m).hdel(k.pass, m).hdel(k.record(kind, id), "bk").exec();
  }

  /** How many deprovisions are held, and how many the window counts now. */
  async counts(dir: string, windowMs: number): Promise<{ held: number; counted: number }> {
    const k = this.keys(dir);
    const [held, counted] = await Promise.all([this.redis.hlen(k.held), this.redis.zcount(k.window, Date.now() - windowMs, "+inf")]);
    return { held, counted };
  }

  /** One slice of the held items (HSCAN from `cursor`; "0" again once the hash has been walked). */
  async slice(dir: string, cursor: string, count = BRAKE_SLICE): Promise<{ next: string; items: HeldDeprovision[] }> {
    const [next, flat] = await this.redis.hscan(this.keys(dir).held, cursor, "COUNT", count);
    const items: HeldDeprovision[] = [];
    for (let i = 1; i < flat.length; i += 2) items.push(JSON.parse(flat[i]) as HeldDeprovision);
    return { next, items };
  }

  /** Up to `limit` held items, sorted by name. */
  async list(dir: string, limit = 1000): Promise<HeldDeprovision[]> {
    const out: HeldDeprovision[] = [];
    let cursor = "0";
    do {
      const s = await this.slice(dir, cursor);
      out.push(...s.items);
      cursor = s.next;
    } while (cursor !== "0" && out.length < limit);
    return out.slice(0, limit).sort((a, b) => `${a.name ?? a.id}`.localeCompare(`${b.name ?? b.id}`));
  }

  /** Confirmed: the items pass the brake once and leave the hold (one MULTI per slice). */
  async pass(dir: string, items: HeldDeprovision[]): Promise<void> {
    if (!items.length) return;
    const k = this.keys(dir);
    const ms = items.map((it) => `${it.kind}:${it.id}`);
    const multi = this.redis.multi().hset(k.pass, ...ms.flatMap((m) => [m, "1"])).hdel(k.held, ...ms);
    for (const it of items) multi.hset(k.record(it.kind, it.id), "bk", "pass");
    await multi.exec();
  }

  /** Cancelled: the items leave the hold and stay as they are on the platform until the IdP changes them. */
  async release(dir: string, items: HeldDeprovision[]): Promise<void> {
    if (!items.length) return;
    const k = this.keys(dir);
    const multi = this.redis.multi().hset(k.released, ...items.flatMap((it) => [`${it.kind}:${it.id}`, it.version]))
      .hdel(k.held, ...items.map((it) => `${it.kind}:${it.id}`));
    for (const it of items) multi.hset(k.record(it.kind, it.id), "bk", "released");
    await multi.exec();
  }

  /** Appends an audit entry (100 kept). */
  async audit(dir: string, e: BrakeAuditEntry): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().lpush(k.audit, JSON.stringify(e)).ltrim(k.audit, 0, 99).exec();
  }

  /** The latest audit entries, newest first. */
  async auditList(dir: string): Promise<BrakeAuditEntry[]> {
    return (await this.redis.lrange(this.keys(dir).audit, 0, 99)).map((s) => JSON.parse(s) as BrakeAuditEntry);
  }
}
