/**
 * A held resync is confirmed against the present, not the past: between the hold and the operator's
 * answer the IdP may push the people again (the documented recovery from a lost store), and the bridge
 * re-adopts them onto the same platform ids. Before a confirmation is answered and again before a worker
 * deprovisions, every held item is re-checked against the current store, sync state and ownership; an item
 * the directory wants again, or that another directory now manages, is dropped from the hold.
 *
 * Dropped when:
 *   - the store holds the resource again (same SCIM id, or the same userName / displayName: a re-push gets a
 *     new SCIM id and is adopted onto the platform resource of that name);
 *   - a desired resource's sync state now points at the held platform resource (workforce platform id,
 *     embed external user, or an embed-tenant group name a desired group maps to);
 *   - another directory of the account manages it (the bridge never deprovisions what it does not own).
 * Reads go in slices of HELD_SLICE; what is wanted again is gathered once per check, lazily.
 */
import type { DirectoryConfig } from "../../config/schema";
import type { RedisConnection } from "../../store/connection";
import { GroupStore, UserStore } from "../../store";
import { SyncStateStore } from "../state/sync-state";
import { Ownership } from "../ownership/ownership-store";
import { ResyncHeld, HELD_SLICE } from "./resync-held";
import { type PlanItem } from "./resync-store";
import { embedGroupName } from "../mapping/embed-user";
import { ownerSpace } from "../ownership/ownership-guard";
import type { ReconcileContext } from "../context";

export interface RecheckDeps {
  redis: RedisConnection;
  keyPrefix: string;
  dir: DirectoryConfig;
}

/** The platform resources the directory's desired state maps to now. */
interface Wanted {
  /** Workforce platform ids, embed external ids, embed-tenant group names (lower-cased). */
  users: Set<string>;
  groups: Set<string>;
}

/** Re-checks held items; gathers what the directory wants now on first use. */
export class HeldRecheck {
  private wanted?: Promise<Wanted>;
  private readonly users: UserStore;
  private readonly groups: GroupStore;
  private readonly state: SyncStateStore;
  private readonly ownership: Ownership;

  constructor(private readonly d: RecheckDeps) {
    this.users = new UserStore(d.redis, d.keyPrefix);
    this.groups = new GroupStore(d.redis, d.keyPrefix);
    this.state = new SyncStateStore(d.redis, d.keyPrefix);
    this.ownership = new Ownership(d.redis, d.keyPrefix);
  }

  /** Splits items into those still to deprovision and those dropped. */
  async split(items: PlanItem[]): Promise<{ keep: PlanItem[]; drop: PlanItem[] }> {
    const dir = this.d.dir.id;
    const workforce = this.d.dir.target === "workforce";
    const users = items.filter((it) => it.kind === "user");
    const groups = items.filter((it) => it.kind === "group");
    const inStore = new Set<string>();
    for (const u of await this.users.find(dir, "id", users.map((it) => it.id))) inStore.add(`user:${u.id}`);
    for (const g of await this.groups.find(dir, "id", groups.map((it) => it.id), false)) inStore.add(`group:${g.id}`);
    const names = new Set<string>();
    if (workforce) {
      for (const u of await this.users.find(dir, "userName", users.flatMap((it) => (it.name ? [it.name] : [])))) names.add(`user:${String(u.body.userName).toLowerCase()}`);
      for (const g of await this.groups.find(dir, "displayName", groups.flatMap((it) => (it.name ? [it.name] : [])), false)) names.add(`group:${String(g.body.displayName).toLowerCase()}`);
    }
    const wanted = await this.gather();
    const owned = await this.ownedHere(items);
    const keep: PlanItem[] = [];
    const drop: PlanItem[] = [];
    for (const [i, it] of items.entries()) {
      const target = this.target(it).toLowerCase();
      const again = inStore.has(`${it.kind}:${it.id}`)
        || (workforce && it.name !== undefined && names.has(`${it.kind}:${it.name.toLowerCase()}`))
        || (it.kind === "group" ? wanted.groups : wanted.users).has(target)
        || (it.kind === "embed-group" && wanted.groups.has(target));
      (again || !owned[i] ? drop : keep).push(it);
    }
    return { keep, drop };
  }

  /** The resource an item acts on: workforce platform id, embed external id, embed-tenant group name. */
  private target(it: PlanItem): string {
    if (this.d.dir.target === "workforce") return it.platformId ?? "";
    return it.kind === "user" ? it.name ?? "" : it.id;
  }

  /** True where no other directory of the account manages the item's resource. */
  private async ownedHere(items: PlanItem[]): Promise<boolean[]> {
    const c = { dir: this.d.dir } as ReconcileContext;
    const out = new Array<boolean>(items.length).fill(true);
    for (const kind of ["user", "group"] as const) {
      const idx = items.flatMap((it, i) => ((it.kind === "embed-group" ? "group" : it.kind) === kind ? [i] : []));
      const space = ownerSpace(c, kind);
      const keys = idx.map((i) => (space.startsWith("eg:") ? this.target(items[i]).toLowerCase() : this.target(items[i])));
      const owners = await this.ownership.owners(this.d.dir.platform.baseUrl, space, keys);
      idx.forEach((i, j) => { out[i] = !owners[j] || owners[j] === this.d.dir.id; });
    }
    return out;
  }

  private gather(): Promise<Wanted> {
    this.wanted ??= this.load();
    return this.wanted;
  }

  /** What the desired state maps to now, read HELD_SLICE resources at a time. */
  private async load(): Promise<Wanted> {
    const dir = this.d.dir.id;
    const workforce = this.d.dir.target === "workforce";
    const w: Wanted = { users: new Set(), groups: new Set() };
    for (let after = 0; ;) {
      const { ids, last } = await this.users.idsAfter(dir, after, HELD_SLICE);
      if (!ids.length) break;
      for (const st of await this.state.getMany(dir, "user", ids)) {
        const t = workforce ? st.platformId : st.externalId;
        if (t) w.users.add(t.toLowerCase());
      }
      after = last;
    }
    for (let after = 0; ;) {
      const { ids, last } = await this.groups.idsAfter(dir, after, HELD_SLICE);
      if (!ids.length) break;
      if (workforce) {
        for (const st of await this.state.getMany(dir, "group", ids)) if (st.platformId) w.groups.add(st.platformId.toLowerCase());
      } else {
        for (const g of await this.groups.find(dir, "id", ids, false)) {
          const name = embedGroupName(String(g.body.displayName), this.d.dir.embed!);
          if (name) w.groups.add(name.toLowerCase());
        }
      }
      after = last;
    }
    return w;
  }
}

/** Why the hold stands after a re-check. */
export function recheckedReason(held: number, dropped: number, first: string): string {
  return `${held} deprovision(s) still held after a re-check against the current store at ${new Date().toISOString()}`
    + ` (${dropped} dropped: the IdP pushed them again, or another directory manages them); first held because: ${first}`;
}

/**
 * Re-checks every held item of the directory's resync, a slice at a time; drops what the directory wants
 * again and refreshes the hold's reason. Returns how many are still held and how many were dropped.
 */
export async function recheckHeld(d: RecheckDeps): Promise<{ held: number; dropped: number }> {
  const held = new ResyncHeld(d.redis, d.keyPrefix);
  const check = new HeldRecheck(d);
  let dropped = 0;
  let cursor = "0";
  do {
    const s = await held.slice(d.dir.id, cursor);
    cursor = s.next;
    const { drop } = await check.split(s.items);
    await held.remove(d.dir.id, drop);
    dropped += drop.length;
  } while (cursor !== "0");
  const left = await held.refresh(d.dir.id, dropped, (first, n) => recheckedReason(n, dropped, first));
  return { held: left, dropped };
}
