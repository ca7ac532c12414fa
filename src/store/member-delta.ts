/**
 * A workforce group's membership delta, read and settled in slices (commands/groupMemberDelta-n.lua,
 * commands/settleGroupMembers-3.lua): the members to look at are scanned here, MEMBER_SLICE at a time,
 * and each slice is looked at by one script that receives every member's sync-state key, so a group's
 * large change costs many short Redis calls rather than one that stalls every other tenant. The changed
 * members are looked at first; every SCIM and applied member too in "full" mode or when a wholesale write
 * left its "*" mark. A member met more than once (in several phases, or twice by one scan) counts once.
 */
import type { RedisConnection } from "./connection";
import type { StoreCommands } from "./scripts";
import { MEMBER_SLICE, memberSlices } from "./member-slices";

/** A workforce group's membership delta, as groupMemberDelta-n.lua computes it. */
export interface MemberDelta {
  /** Changed members looked at, and their change numbers: settled once the delta is applied. */
  seen: string[];
  scores: string[];
  add: Array<{ id: string; pid: string }>;
  /** `pid` undefined: the user has no platform id any more (nothing to remove on the platform). */
  remove: Array<{ id: string; pid?: string }>;
  /** "full" mode only: every member that should be on the platform group. */
  should: Array<{ id: string; pid: string }>;
  /** User members looked at whose first sync is under way (they get a platform id soon). */
  unready: string[];
}

/** What settleMembers records: the members looked at (with their change numbers) and the applied delta. */
export interface SettledDelta { seen: string[]; scores: string[]; add: string[]; remove: string[] }

type Scripts = RedisConnection & StoreCommands;

/** The keys of one group's delta: changed members (and earlier releases'), SCIM and applied members, a member's sync state. */
export interface MemberDeltaKeys {
  changed: string;
  legacyChanged: string;
  members: string;
  applied: string;
  staged: string;
  syncState: (member: string) => string;
}

/** The delta of one group (its `keys`); `full`: every member should be listed in `should`. */
export async function readMemberDelta(redis: Scripts, keys: MemberDeltaKeys, full: boolean, size = MEMBER_SLICE): Promise<MemberDelta> {
  const seen = new Map<string, string>();
  const add = new Map<string, string>();
  const remove = new Map<string, string | undefined>();
  const should = new Map<string, string>();
  const unready = new Set<string>();
  const looked = new Set<string>(["*"]);
  const fixed = [keys.changed, keys.legacyChanged, keys.members, keys.applied];
  const look = async (members: string[]) => {
    const fresh = [...new Set(members)].filter((m) => !looked.has(m));
    if (!fresh.length) return;
    for (const m of fresh) looked.add(m);
    const [addIds, addPids, removeIds, removePids, shouldIds, shouldPids, waiting] = await redis.groupMemberDelta(
      4 + fresh.length, ...fixed, ...fresh.map(keys.syncState), "look", full ? "full" : "", ...fresh) as string[][];
    addIds.forEach((id, i) => add.set(id, addPids[i]));
    removeIds.forEach((id, i) => remove.set(id, removePids[i] || undefined));
    shouldIds.forEach((id, i) => should.set(id, shouldPids[i]));
    for (const id of waiting) unready.add(id);
  };
  // an earlier release's changed members merged first
  while (Number(await redis.groupMemberDelta(4, ...fixed, "legacy", String(size))) === 1) { /* next slice */ }
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(keys.changed, cursor, "COUNT", size);
    cursor = next;
    const page: string[] = [];
    for (let i = 0; i < flat.length; i += 2) { seen.set(flat[i], flat[i + 1]); page.push(flat[i]); }
    await look(page);
  } while (cursor !== "0");
  if (full || seen.has("*")) {
    for await (const slice of memberSlices(redis, keys.members, size)) await look(slice.map((m) => m.value));
    cursor = "0";
    do {
      const [next, page] = await redis.sscan(keys.applied, cursor, "COUNT", size);
      cursor = next;
      await look(page);
    } while (cursor !== "0");
  }
  return {
    seen: [...seen.keys()], scores: [...seen.values()],
    add: [...add].map(([id, pid]) => ({ id, pid })),
    remove: [...remove].map(([id, pid]) => ({ id, pid })),
    should: [...should].map(([id, pid]) => ({ id, pid })),
    unready: [...unready],
  };
}

/**
 * Records an applied delta in slices (or, with `replace`, stages `add` and publishes it as the applied set
 * in one call) and settles the members looked at; returns how many changed members are still waiting.
 */
export async function settleMemberDelta(redis: Scripts, keys: Pick<MemberDeltaKeys, "changed" | "applied" | "staged">, d: SettledDelta, replace: boolean, size = MEMBER_SLICE): Promise<number> {
  const part = (list: string[], i: number) => list.slice(i, i + size);
  const call = async (mode: string, slice: SettledDelta) => Number(await redis.settleGroupMembers(keys.changed, keys.applied, keys.staged, mode, JSON.stringify(slice)));
  let waiting = 0;
  if (replace && d.add.length <= size && d.seen.length <= size) return call("replace", d);
  if (replace) {
    // "restage" first, even with nothing to add: a stage a crashed run left behind is never published
    for (let i = 0; i === 0 || i < d.add.length; i += size) await call(i === 0 ? "restage" : "stage", { seen: [], scores: [], add: part(d.add, i), remove: [] });
    waiting = await call("publish", { seen: part(d.seen, 0), scores: part(d.scores, 0), add: [], remove: [] });
    for (let i = size; i < d.seen.length; i += size) waiting = await call("", { seen: part(d.seen, i), scores: part(d.scores, i), add: [], remove: [] });
    return waiting;
  }
  const n = Math.max(d.seen.length, d.add.length, d.remove.length, 1);
  for (let i = 0; i < n; i += size) {
    waiting = await call("", { seen: part(d.seen, i), scores: part(d.scores, i), add: part(d.add, i), remove: part(d.remove, i) });
  }
  return waiting;
}
