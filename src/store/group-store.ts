/**
 * Groups of a directory in Redis. The body and the membership are stored apart, so a member delta never
 * rewrites the group and a read without members never loads them.
 */
import type { RedisConnection } from "./connection";
import { idsAfterSeq, seqsOfIds } from "./creation-order";
import { DirectoryKeys } from "./keys";
import { defineStoreCommands, type StoreCommands } from "./scripts";
import { acceptedReply, writeResult } from "./script-replies";
import type { ReplicaAck } from "./replica-ack";
import { settledWrite } from "./write-settle";
import { MemberOfDrain, memberOfQueue } from "./member-of-drain";
import { outboxSignalOf, type OutboxSignal } from "./outbox-signal";
import { MEMBER_SLICE, memberRecord, memberSlices } from "./member-slices";
import { writeGroupInSlices, type MemberOpTuple } from "./group-write-slices";
import type { GroupRecord, Json, MemberOp, MemberRecord, WriteOptions, WriteResult } from "./types";

/** Index lookups the store answers without a scan. */
export type GroupIndex = "id" | "displayName" | "externalId" | "member";
const INDEX_MODE: Record<GroupIndex, "ids" | "gns" | "gxs" | "mg"> = { id: "ids", displayName: "gns", externalId: "gxs", member: "mg" };

/** A group write: a new body (or none), the body it replaces (compare-and-set) and member deltas. */
export interface GroupWrite extends WriteOptions {
  mode: "create" | "update";
  body?: Json;
  /** The body this write was computed from; the write retries (StoreRetryError) if it changed meanwhile. */
  basedOn?: Json;
  /** Member deltas, or the same already encoded (`encodeMemberOps`). */
  memberOps?: MemberOp[] | EncodedMemberOps;
  expectedVersion?: number;
}

/** What Redis receives for `s` as UTF-8: lone surrogates become U+FFFD, as the command encoder makes them. */
function wellFormed(s: string): string {
  return (s as string & { toWellFormed(): string }).toWellFormed();
}

/**
 * The member operations as writeGroup's one JSON argument, `[[name, values, displays?], …]`: one
 * string to encode and send instead of two arguments per member. Redis's JSON decoder refuses a lone
 * surrogate escape (`\ud800`) that the UTF-8 encoder would have sent as U+FFFD, so when JSON.stringify
 * wrote one (or anything like one), the strings are made well-formed and encoded again.
 */
function memberOpsJson(ops: MemberOp[]): string {
  const encode = (fix: (s: string) => string) => JSON.stringify(ops.map((op) => {
    const values = op.members.map((m) => fix(m.value));
    if (!op.members.some((m) => m.display)) return [op.op, values];
    return [op.op, values, op.members.map((m) => fix(m.display ?? ""))];
  }));
  const json = encode((s) => s);
  return json.includes("\\ud") ? encode(wellFormed) : json;
}

/** Encoded member operations without `values` among their adds and replaces (removes keep every value). */
function withoutValues(opsJson: string, values: Set<string>): string {
  const ops = JSON.parse(opsJson) as Array<[string, string[], string[]?]>;
  return JSON.stringify(ops.map(([op, vals, displays]) => {
    if (op === "remove") return displays ? [op, vals, displays] : [op, vals];
    const keep = vals.map((_, i) => i).filter((i) => !values.has(vals[i]));
    const kept: [string, string[], string[]?] = [op, keep.map((i) => vals[i])];
    if (displays) kept.push(keep.map((i) => displays[i]));
    return kept;
  }));
}

/**
 * Member operations encoded for the write script: one flat string. A caller that encodes them before the
 * write can let go of the member objects while the write waits on Redis (see the group PATCH route).
 */
export class EncodedMemberOps {
  constructor(readonly json: string, readonly count: number, readonly values = 0) {}
}

/** `ops` encoded once (`count`: how many operations; `values`: how many members they name). */
export function encodeMemberOps(ops: MemberOp[]): EncodedMemberOps {
  return new EncodedMemberOps(memberOpsJson(ops), ops.length, ops.reduce((n, op) => n + op.members.length, 0));
}

/**
 * When a group counts as large: from `members` members on, unless its directory already has `perDirectory`
 * large groups. A large group leaves the reverse index for good (commands/includes/drainMemberOf.lua):
 * its member changes cost Redis no reverse-index work, and each read of a member's groups checks its member
 * hash instead (one HEXISTS per large group of the directory).
 */
export interface LargeGroups {
  members: number;
  perDirectory: number;
}
/** The defaults of scim.largeGroupMembers and scim.largeGroupsPerDirectory. */
export const LARGE_GROUPS: LargeGroups = { members: 1000, perDirectory: 8 };

/** LargeGroups from the `scim` options. */
export function largeGroups(config: { scim: { largeGroupMembers: number; largeGroupsPerDirectory: number } }): LargeGroups {
  return { members: config.scim.largeGroupMembers, perDirectory: config.scim.largeGroupsPerDirectory };
}

/** Groups of every directory, on one Redis connection (writes on a second one with `replicaAck`). */
export class GroupStore {
  private readonly redis: RedisConnection & StoreCommands;
  /** Applies membership changes to the reverse index after the writes have answered (member-of-drain.ts). */
  readonly memberOf: MemberOfDrain;
  /** Tells the dispatcher on Redis Cluster which outbox has news (outbox-signal.ts). */
  private readonly signal: OutboxSignal;
  /** Where writes run: `redis`, or the replica-acknowledged connection of `replicaAck`. */
  private readonly writer: RedisConnection & StoreCommands;
  /**
   * `writeSettleMs`: how long a write whose answer was lost waits for Redis to settle it (write-settle.ts);
   * `replicaAck`: writes are answered once replicas hold them (replica-ack.ts); `large`: see LargeGroups.
   */
  constructor(
    redis: RedisConnection, private readonly keyPrefix: string, private readonly maxMembers = 200000, private readonly writeSettleMs = 10000,
    private readonly replicaAck?: ReplicaAck, private readonly large: LargeGroups = LARGE_GROUPS,
  ) {
    this.redis = defineStoreCommands(redis);
    this.writer = replicaAck ? defineStoreCommands(replicaAck.connection) : this.redis;
    this.memberOf = new MemberOfDrain(this.redis, keyPrefix);
    this.signal = outboxSignalOf(redis, keyPrefix);
  }

  keys(directoryId: string): DirectoryKeys {
    return new DirectoryKeys(this.keyPrefix, directoryId);
  }

  /**
   * Applies one GroupWrite atomically: in one call, or, when it names more than MEMBER_SLICE members or
   * clears or replaces a group that has more, staged in slices and published by one short call
   * (group-write-slices.ts), so no Redis call grows with the group.
   */
  async write(directoryId: string, id: string, w: GroupWrite): Promise<WriteResult> {
    const k = this.keys(directoryId);
    const displayName = typeof w.body?.displayName === "string" ? w.body.displayName : "";
    const externalId = typeof w.body?.externalId === "string" ? w.body.externalId : "";
    const expected = w.expectedVersion === undefined ? "" : String(w.expectedVersion);
    const oldD = w.basedOn ? JSON.stringify(w.basedOn) : "";
    const newD = w.body ? JSON.stringify(w.body) : "";
    const settle = (call: (rid: string, ttl: string) => Promise<string[]>) => settledWrite(this.writer, k.prefix, this.writeSettleMs, call, this.replicaAck);
    const run = (opsJson: string, sliceAbove: string) => {
      const args: string[] = [
        id, w.mode, expected, new Date().toISOString(), oldD, newD,
        displayName.toLowerCase(), externalId, displayName, String(this.maxMembers), opsJson, w.uniqueExternalId ? "1" : "",
      ];
      return settle((rid, ttl) => this.writer.writeGroup(
        k.prefix, k.group(id), k.groupMembers(id), k.userIds, k.users, k.groups, k.index("gns"), k.index("gn"), k.index("gxs"), k.index("gx"),
        k.changeSeq, k.changedMembers(id), k.largeGroups, memberOfQueue(k), k.sortIndex("g", "dn"), k.sortIndex("g", "m"), k.seq, k.outbox, k.request(rid),
        ...args, ttl, String(this.large.members), String(this.large.perDirectory), sliceAbove));
    };
    const opsJson = w.memberOps instanceof EncodedMemberOps ? w.memberOps.json : memberOpsJson(w.memberOps ?? []);
    const values = w.memberOps instanceof EncodedMemberOps ? w.memberOps.values : (w.memberOps ?? []).reduce((n, op) => n + op.members.length, 0);
    let r = values > MEMBER_SLICE ? ["SLICE"] : await run(opsJson, String(MEMBER_SLICE));
    let skipped: string[] | undefined;
    if (r[0] === "SLICE") {
      const sliced = await writeGroupInSlices(this.writer, k, {
        id, mode: w.mode, expectedVersion: expected, oldD, newD, displayNameLower: displayName.toLowerCase(), externalId, displayName,
        maxMembers: this.maxMembers, uniqueExternalId: !!w.uniqueExternalId, largeMembers: this.large.members,
        largePerDirectory: this.large.perDirectory, skipUnknownMembers: !!w.skipUnknownMembers, settle,
      }, JSON.parse(opsJson) as MemberOpTuple[]);
      r = sliced.reply;
      if (sliced.skipped.length) skipped = sliced.skipped;
      // a group that cannot be large (its directory has its share of large groups) is written in one call
      if (r[0] === "UNSLICED") r = await run(opsJson, "");
    }
    // The script names every unknown value at once, so one more write without them is enough; only a
    // member deleted between the two writes can refuse the second, and then the write answers that.
    if (r[0] === "INVALID" && w.skipUnknownMembers) {
      skipped = r.slice(1);
      r = await run(withoutValues(opsJson, new Set(skipped)), "");
    }
    const result = writeResult("Group", id, r);
    // "0": nothing queued for the reverse index (a large group's members, a body-only change); a reply
    // kept by an earlier release has no such field
    if (result.changed && r[4] !== "0") this.memberOf.request(directoryId);
    if (result.changed) this.signal.notify(directoryId);
    return { ...result, ...(skipped ? { skippedMembers: skipped } : {}) };
  }

  /** Deletes a group, its membership and its own memberships in other groups. */
  async delete(directoryId: string, id: string, expectedVersion?: number): Promise<void> {
    const k = this.keys(directoryId);
    const now = new Date().toISOString();
    const r = await settledWrite(this.writer, k.prefix, this.writeSettleMs, (rid, ttl) =>
      this.writer.deleteGroup(k.prefix, k.group(id), k.groupMembers(id), k.memberOf(id), k.groups, k.largeGroups, k.index("gns"), k.index("gn"),
        k.index("gxs"), k.index("gx"), k.sortIndex("g", "dn"), k.sortIndex("g", "m"), k.outbox, k.request(rid),
        id, expectedVersion === undefined ? "" : String(expectedVersion), now, ttl), this.replicaAck);
    acceptedReply("Group", id, r);
    this.signal.notify(directoryId);
  }

  /**
   * Groups by id or by an index; members are loaded only when `withMembers`. `"sliced"`: members are loaded
   * while the call's total stays within MEMBER_SLICE; a group left without (`members` undefined although
   * `memberCount` > 0) is read with `memberSlices`.
   */
  async find(directoryId: string, index: GroupIndex, values: string[], withMembers: boolean | "sliced"): Promise<GroupRecord[]> {
    if (values.length === 0) return [];
    const k = this.keys(directoryId);
    const vals = index === "displayName" ? values.map((v) => v.toLowerCase()) : values;
    const mode = withMembers === "sliced" ? `b${MEMBER_SLICE}` : withMembers ? "1" : "0";
    // readGroups-n.lua: by id, the groups' keys; through an index, its key; by member, none but the prefix
    const m = INDEX_MODE[index];
    const keys = m === "ids" ? vals.map((id) => k.group(id)) : m === "mg" ? [] : [k.index(m)];
    const rows = await this.redis.readGroups(1 + keys.length, k.prefix, ...keys, mode, m, ...vals);
    return rows.map((row) => {
      const rec: GroupRecord = {
        id: String(row[0]), body: JSON.parse(String(row[1])) as Json, version: Number(row[2]),
        created: String(row[3]), lastModified: String(row[4]), memberCount: Number(row[5]),
      };
      if (withMembers === true || (withMembers === "sliced" && (row.length > 6 || rec.memberCount === 0))) {
        const members: MemberRecord[] = [];
        for (let i = 6; i < row.length; i += 2) members.push(memberRecord(String(row[i]), String(row[i + 1])));
        rec.members = members;
      }
      return rec;
    });
  }

  /** One group by id, or undefined. */
  async get(directoryId: string, id: string, withMembers: boolean | "sliced"): Promise<GroupRecord | undefined> {
    return (await this.find(directoryId, "id", [id], withMembers))[0];
  }

  /** The members of a group in bounded slices (member-slices.ts). */
  memberSlices(directoryId: string, id: string, size = MEMBER_SLICE): AsyncGenerator<MemberRecord[]> {
    return memberSlices(this.redis, this.keys(directoryId).groupMembers(id), size);
  }

  /** The member values of a group (no bodies), read in slices of MEMBER_SLICE (member-slices.ts). */
  async memberValues(directoryId: string, id: string): Promise<string[]> {
    const out: string[] = [];
    for await (const slice of this.memberSlices(directoryId, id)) for (const m of slice) out.push(m.value);
    return out;
  }

  count(directoryId: string): Promise<number> {
    return this.redis.zcard(this.keys(directoryId).groups);
  }

  ids(directoryId: string, start = 0, stop = -1): Promise<string[]> {
    return this.redis.zrange(this.keys(directoryId).groups, String(start), String(stop));
  }

  /**
   * Up to `limit` group ids created after creation sequence `after` (0: from the first), in creation order,
   * and the sequence of the last one: a cursor that stays right while groups are added or deleted meanwhile.
   */
  async idsAfter(directoryId: string, after: number, limit: number): Promise<{ ids: string[]; seqs: number[]; last: number }> {
    return idsAfterSeq(this.redis, this.keys(directoryId).groups, after, limit);
  }

  /** The creation sequence of each id (null for an id that does not exist), read in slices. */
  async seqsOf(directoryId: string, ids: string[]): Promise<Array<number | null>> {
    return seqsOfIds(this.redis, this.keys(directoryId).groups, ids);
  }
}
