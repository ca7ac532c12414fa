/**
 * A group write too big for one Redis call, in slices (commands/stageGroupMembers-8.lua,
 * commands/publishGroupMembers-16.lua): the group's new member hash is built in a staging hash of its own,
 * at most MEMBER_SLICE members per call, and one short last call checks that the group is still the
 * version the staging began from and swaps the staged hash in with the body. Stage-then-publish keeps the
 * write all-or-nothing: until the publish nobody reads the staging hash, and a write refused on the way
 * (an unknown member, too many members) or outrun by another write leaves the group as it was.
 */
import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./connection";
import type { DirectoryKeys } from "./keys";
import { MEMBER_SLICE } from "./member-slices";
import type { StoreCommands } from "./scripts";

/** One member operation as the write scripts take it: [op, values, displays?]. */
export type MemberOpTuple = [string, string[], string[]?];

/** Seconds a staging hash outlives its last slice: a write that dies half-way leaves nothing for long. */
const STAGING_TTL_SECONDS = 600;
/** Times a sliced write stages again after another write to the group outran it, before answering RETRY. */
const STALE_ATTEMPTS = 5;

/** What the sliced write needs besides its keys: the arguments of the begin and publish calls. */
export interface SlicedGroupWrite {
  id: string;
  mode: "create" | "update";
  expectedVersion: string;
  oldD: string;
  newD: string;
  displayNameLower: string;
  externalId: string;
  displayName: string;
  maxMembers: number;
  uniqueExternalId: boolean;
  largeMembers: number;
  largePerDirectory: number;
  skipUnknownMembers: boolean;
  /** Runs the publish call as a settled write (write-settle.ts): `call(requestId, ttl)`. */
  settle: (call: (requestId: string, ttl: string) => Promise<string[]>) => Promise<string[]>;
}

/**
 * The operations that decide the result, and whether they start from no members: everything before the
 * last clear or replace is cleared by it (a replace becomes an add onto nothing).
 */
export function fromLastReset(ops: MemberOpTuple[]): { fromEmpty: boolean; ops: MemberOpTuple[] } {
  let last = -1;
  ops.forEach(([op], i) => { if (op === "clear" || op === "replace") last = i; });
  if (last < 0) return { fromEmpty: false, ops };
  const [op, values, displays] = ops[last];
  const rest = ops.slice(last + 1);
  return { fromEmpty: true, ops: op === "clear" ? rest : [displays ? ["add", values, displays] : ["add", values], ...rest] };
}

/** The operations cut into slices of at most `size` values each, in order. */
export function opSlices(ops: MemberOpTuple[], size = MEMBER_SLICE): MemberOpTuple[][] {
  const slices: MemberOpTuple[][] = [];
  let slice: MemberOpTuple[] = [];
  let room = size;
  for (const [op, values, displays] of ops) {
    for (let i = 0; i < values.length; ) {
      const take = Math.min(room, values.length - i);
      slice.push(displays ? [op, values.slice(i, i + take), displays.slice(i, i + take)] : [op, values.slice(i, i + take)]);
      i += take;
      room -= take;
      if (room === 0) { slices.push(slice); slice = []; room = size; }
    }
  }
  if (slice.length) slices.push(slice);
  return slices;
}

/** The members the operations add (the begin call's hint of how large the group gets). */
function added(ops: MemberOpTuple[]): number {
  return ops.reduce((n, [op, values]) => n + (op === "remove" ? 0 : values.length), 0);
}

/**
 * Runs the sliced write; the publish call's reply (as writeGroup-19.lua's), ["INVALID", …values] when
 * members to add are unknown and the write does not skip them, or ["UNSLICED"] when the group cannot be
 * written in slices (not large: see stageGroupMembers-8.lua) and must be written in one call.
 */
export async function writeGroupInSlices(
  redis: RedisConnection & StoreCommands, k: DirectoryKeys, w: SlicedGroupWrite, allOps: MemberOpTuple[],
): Promise<{ reply: string[]; skipped: string[] }> {
  const { fromEmpty, ops } = fromLastReset(allOps);
  const slices = opSlices(ops);
  const p = k.prefix;
  for (let attempt = 1; ; attempt++) {
    const staging = k.stagedGroupMembers(w.id, randomUUID());
    const keys = [k.group(w.id), k.groupMembers(w.id), staging, k.userIds, k.users, k.groups, k.largeGroups, p] as const;
    try {
      const begun = await redis.stageGroupMembers(...keys, "begin", w.id, w.mode, w.expectedVersion, w.oldD,
        String(added(allOps)), String(w.largeMembers), String(w.largePerDirectory));
      if (begun[0] !== "OK") return { reply: begun, skipped: [] };
      const v0 = begun[1];
      if (!fromEmpty && v0 !== "") {
        let cursor = "0";
        do cursor = String(await redis.stageGroupMembers(...keys, "copy", w.id, cursor, String(MEMBER_SLICE), String(STAGING_TTL_SECONDS)));
        while (cursor !== "0");
      }
      let differs = false;
      const invalid: string[] = [];
      for (const slice of slices) {
        const [d, ...bad] = await redis.stageGroupMembers(...keys, "apply", w.id, String(STAGING_TTL_SECONDS), JSON.stringify(slice));
        if (d === "1") differs = true;
        for (const v of bad) if (!invalid.includes(v)) invalid.push(v);
      }
      if (invalid.length && !w.skipUnknownMembers) return { reply: ["INVALID", ...invalid], skipped: [] };
      const reply = await w.settle((rid, ttl) => redis.publishGroupMembers(
        k.group(w.id), k.groupMembers(w.id), staging, k.groups, k.index("gxs"), k.index("gx"), k.index("gns"), k.index("gn"),
        k.sortIndex("g", "dn"), k.sortIndex("g", "m"), k.seq, k.outbox, k.changeSeq, k.changedMembers(w.id), k.request(rid), k.largeGroups,
        w.id, w.mode, v0, new Date().toISOString(), w.oldD, w.newD, w.displayNameLower, w.externalId, w.displayName,
        String(w.maxMembers), w.uniqueExternalId ? "1" : "", differs ? "1" : "", rid, ttl, String(w.largePerDirectory)));
      if (reply[0] === "STALE" && attempt < STALE_ATTEMPTS) continue;
      return { reply: reply[0] === "STALE" ? ["RETRY"] : reply, skipped: invalid };
    } finally {
      // the staging hash of a publish is gone already; one of a refused or outrun write goes now
      await redis.unlink(staging).catch(() => undefined);
    }
  }
}
