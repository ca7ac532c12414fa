/**
 * The deprovisions a resync holds for an operator (`P resync:held`, see resync-store.ts), read and
 * forgotten in bounded slices: a confirmation re-checks and applies them a slice at a time, never the whole
 * hash in one call, and a hold's reason is refreshed once they were re-checked against the present.
 */
import type { RedisConnection } from "../../store/connection";
import { ResyncKeys } from "./resync-keys";
import type { PlanItem } from "./resync-store";

/** Held items read per call. */
export const HELD_SLICE = 500;

export class ResyncHeld {
  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {}

  private keys(dir: string): ResyncKeys {
    return new ResyncKeys(this.keyPrefix, dir);
  }

  /** One slice of the held items (HSCAN from `cursor`; "0" again once the hash has been walked). */
  async slice(dir: string, cursor: string, count = HELD_SLICE): Promise<{ next: string; items: PlanItem[] }> {
    const [next, flat] = await this.redis.hscan(this.keys(dir).held, cursor, "COUNT", count);
    const items: PlanItem[] = [];
    for (let i = 1; i < flat.length; i += 2) items.push(JSON.parse(flat[i]) as PlanItem);
    return { next, items };
  }

  /** Forgets held items (dropped by a re-check, or queued by a confirmation). */
  async remove(dir: string, items: PlanItem[]): Promise<void> {
    if (items.length) await this.redis.hdel(this.keys(dir).held, ...items.map((it) => `${it.kind}:${it.id}`));
  }

  /** How many items are held. */
  count(dir: string): Promise<number> {
    return this.redis.hlen(this.keys(dir).held);
  }

  /**
   * After a re-check: the progress shows what is still held (unless `setHeld` is false), adds `dropped` to what re-checks dropped, keeps
   * the first reason (`firstHoldReason`) and says why the hold stands now.
   */
  async refresh(dir: string, dropped: number, reason: (first: string, held: number) => string, setHeld = true): Promise<number> {
    const k = this.keys(dir);
    const [first, current] = await this.redis.hmget(k.progress, "firstHoldReason", "holdReason");
    const original = first ?? current ?? "";
    const held = await this.count(dir);
    const m = this.redis.multi();
    // once confirmed, `held` keeps what the confirmation took (the progress shows it beside confirmedCount)
    if (setHeld) m.hset(k.progress, "held", held);
    await m.hset(k.progress, "holdReason", reason(original, held), "firstHoldReason", original).hincrby(k.progress, "dropped", dropped).exec();
    return held;
  }
}
