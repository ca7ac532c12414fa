/**
 * A workforce group's membership delta, read and settled in slices (commands/groupMemberDelta-2.lua,
 * commands/settleGroupMembers-1.lua): each call looks at about MEMBER_SLICE members, so a group's large
 * change costs many short Redis calls rather than one that stalls every other tenant. The slices are put
 * together here; a member met more than once (in several phases, or twice by one HSCAN) counts once.
 */
import type { RedisConnection } from "./connection";
import type { StoreCommands } from "./scripts";
import { MEMBER_SLICE } from "./member-slices";

/** A workforce group's membership delta, as groupMemberDelta-2.lua computes it. */
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

/** The delta of group `groupId` (`keys`: its changed-members hash and earlier releases' sorted set). */
export async function readMemberDelta(redis: Scripts, keys: [string, string], prefix: string, groupId: string, full: boolean, size = MEMBER_SLICE): Promise<MemberDelta> {
  const seen = new Map<string, string>();
  const add = new Map<string, string>();
  const remove = new Map<string, string | undefined>();
  const should = new Map<string, string>();
  const unready = new Set<string>();
  let phase = "legacy";
  let cursor = "0";
  while (phase) {
    const [nextPhase, next, seenIds, seenScores, addIds, addPids, removeIds, removePids, shouldIds, shouldPids, waiting] = await redis.groupMemberDelta(
      ...keys, prefix, groupId, full ? "full" : "", phase, cursor, String(size));
    phase = String(nextPhase);
    cursor = String(next);
    seenIds.forEach((id, i) => seen.set(id, seenScores[i]));
    addIds.forEach((id, i) => add.set(id, addPids[i]));
    removeIds.forEach((id, i) => remove.set(id, removePids[i] || undefined));
    shouldIds.forEach((id, i) => should.set(id, shouldPids[i]));
    for (const id of waiting) unready.add(id);
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
export async function settleMemberDelta(redis: Scripts, changedKey: string, prefix: string, groupId: string, d: SettledDelta, replace: boolean, size = MEMBER_SLICE): Promise<number> {
  const part = (list: string[], i: number) => list.slice(i, i + size);
  const call = async (mode: string, slice: SettledDelta) => Number(await redis.settleGroupMembers(changedKey, prefix, groupId, mode, JSON.stringify(slice)));
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
