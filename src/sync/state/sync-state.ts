/**
 * What the bridge knows of each resource on the platform (the sync state), next to the desired state.
 * Keys (built in sync-state-keys.ts; P = `<keyPrefix>:{<directoryId>}:`):
 *   P s:<k>:<id>      HASH  pid (platform id), h (hash of the last payload applied), st (status),
 *                           a (attempts of the current failure streak), e (last error: the platform's message),
 *                           t (status changed at), sy (last synced at), x (embed externalId applied),
 *                           n (embed group name applied), gs (embed: group names applied to the user, JSON),
 *                           drift ("missing" | "changed": set by a resync; "members": a group's membership
 *                           delta failed half-way, so its next reconcile diffs members against the platform)
 *   P s:gch:<id>      HASH  member id → change number: members whose membership may have to change on the
 *                           platform since the group's last reconcile (SCIM writes and user reconciles add;
 *                           the group's reconcile clears what it looked at; earlier releases kept them in
 *                           the ZSET s:gc:<id>, which the group's next reconcile merges and deletes)
 *   P s:meta          HASH  directory-level: paused (reason), pausedAt, lastSyncAt, hold (ms: the admission's
 *                           429 hold ends then, src/sync/admission/admission-store.ts), unreachableSince (the
 *                           platform has not answered since; src/sync/platform-calls/reachability.ts)
 * s:gcseq (the changed members' change counter), and s:gm, s:st:<status>, s:embed-groups, s:rate as
 * sync-state-keys.ts lists them; <k> is "u" (user) or "g" (group).
 * `pending`: not on the platform as the IdP wants it yet (never applied, retried, or re-queued by an operator).
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryKeys } from "../../store/keys";
import { memberOfQueue } from "../../store/member-of-drain";
import { defineStoreCommands, type StoreCommands } from "../../store/scripts";
import { SyncStateKeys, kindCode as k } from "./sync-state-keys";
import { readMemberDelta, settleMemberDelta, type MemberDelta, type MemberDeltaKeys, type SettledDelta } from "../../store/member-delta";
import { MEMBER_SLICE, setMembers } from "../../store/member-slices";

export type { MemberDelta } from "../../store/member-delta";

export type SyncStatus = "pending" | "synced" | "failed" | "deprovisioned";
export const SYNC_STATUSES: SyncStatus[] = ["pending", "synced", "failed", "deprovisioned"];
export type SyncKind = "user" | "group";

/** The sync state of one resource. */
export interface SyncRecord {
  platformId?: string;
  hash?: string;
  status?: SyncStatus;
  attempts: number;
  lastError?: string;
  changedAt?: string;
  syncedAt?: string;
  externalId?: string;
  appliedName?: string;
  /** Embed: JSON array of the embed-tenant group names last applied to the user. */
  appliedGroups?: string;
  drift?: "missing" | "changed" | "members";
  /** The deprovision brake holds, released or passes a deprovision of it (src/sync/brake/brake-store.ts). */
  brake?: "held" | "released" | "pass";
}

const FIELD: Record<keyof SyncRecord, string> = {
  platformId: "pid", hash: "h", status: "st", attempts: "a", lastError: "e", changedAt: "t", syncedAt: "sy",
  externalId: "x", appliedName: "n", appliedGroups: "gs", drift: "drift", brake: "bk",
};

/** A sync-state hash as read from Redis → SyncRecord. */
function parseRecord(h: Record<string, string>): SyncRecord {
  return {
    platformId: h.pid || undefined, hash: h.h || undefined, status: (h.st as SyncStatus) || undefined,
    attempts: Number(h.a ?? 0), lastError: h.e || undefined, changedAt: h.t || undefined, syncedAt: h.sy || undefined,
    externalId: h.x || undefined, appliedName: h.n || undefined, appliedGroups: h.gs || undefined, drift: (h.drift as SyncRecord["drift"]) || undefined,
    ...(h.bk ? { brake: h.bk as SyncRecord["brake"] } : {}),
  };
}

/** Sync state of every directory, on one Redis connection. */
export class SyncStateStore {
  private readonly scripts: RedisConnection & StoreCommands;

  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {
    this.scripts = defineStoreCommands(redis);
  }

  keys(dir: string): SyncStateKeys {
    return new SyncStateKeys(this.keyPrefix, dir);
  }

  key(dir: string, kind: SyncKind, id: string): string {
    return this.keys(dir).record(kind, id);
  }

  appliedMembersKey(dir: string, groupId: string): string {
    return this.keys(dir).appliedMembers(groupId);
  }

  /** Both keys of a group's changed members: this release's and earlier releases' (until merged). */
  changedMembersKeys(dir: string, groupId: string): [string, string] {
    const k = this.keys(dir);
    return [k.changedMembers(groupId), k.legacyChangedMembers(groupId)];
  }

  /**
   * The membership delta of a workforce group, computed in Redis from the changed members only (or, in
   * "full" mode, from every SCIM and applied member), in slices (member-delta.ts).
   */
  async memberDelta(dir: string, groupId: string, full = false): Promise<MemberDelta> {
    return readMemberDelta(this.scripts, this.memberDeltaKeys(dir, groupId), full);
  }

  /**
   * True when members of the group changed since its reconcile last settled them: this release's
   * changed-members hash is not empty, or an earlier release's sorted set is still there (groupMemberDelta
   * merges it on the group's next delta).
   */
  async hasChangedMembers(dir: string, groupId: string): Promise<boolean> {
    const [changed, legacy] = this.changedMembersKeys(dir, groupId);
    // both keys share the directory's hash tag: two commands of one socket write, not a script
    const [n, old] = await Promise.all([this.redis.hlen(changed), this.redis.exists(legacy)]);
    return n > 0 || old > 0;
  }

  /**
   * Records an applied delta (or, with `replace`, makes the applied set exactly `add`) and settles the
   * changed members looked at. Returns how many changed members are still waiting.
   */
  async settleMembers(dir: string, groupId: string, d: SettledDelta, replace = false): Promise<number> {
    return settleMemberDelta(this.scripts, this.memberDeltaKeys(dir, groupId), d, replace);
  }

  private memberDeltaKeys(dir: string, groupId: string): MemberDeltaKeys {
    const k = this.keys(dir);
    return {
      changed: k.changedMembers(groupId), legacyChanged: k.legacyChangedMembers(groupId), members: new DirectoryKeys(this.keyPrefix, dir).groupMembers(groupId),
      applied: k.appliedMembers(groupId), staged: k.stagedMembers(groupId), syncState: (m) => k.record("user", m),
    };
  }

  /**
   * Marks a user changed in each of its groups (`groupIds`, or "*": the groups the store holds it in when
   * the command runs); returns the groups that need a reconcile asked for.
   */
  async markMemberChanged(dir: string, userId: string, groupIds: string[] | "*"): Promise<string[]> {
    if (!groupIds.length) return [];
    const k = new DirectoryKeys(this.keyPrefix, dir);
    return this.scripts.markMembersChanged(k.prefix, k.changeSeq, memberOfQueue(k), k.memberOf(userId), k.largeGroups, userId, ...(groupIds === "*" ? ["*"] : groupIds));
  }

  statusKey(dir: string, status: SyncStatus): string {
    return this.keys(dir).status(status);
  }

  metaKey(dir: string): string {
    return this.keys(dir).meta;
  }

  async get(dir: string, kind: SyncKind, id: string): Promise<SyncRecord> {
    return parseRecord(await this.redis.hgetall(this.key(dir, kind, id)));
  }

  /** Sync states of many resources of one kind, in order, in one round trip. */
  async getMany(dir: string, kind: SyncKind, ids: string[]): Promise<SyncRecord[]> {
    if (!ids.length) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.key(dir, kind, id));
    const res = (await pipe.exec()) ?? [];
    return res.map(([err, h]) => {
      if (err) throw err;
      return parseRecord(h as Record<string, string>);
    });
  }

  /** Platform ids of many resources of one kind, in order (undefined where unknown). */
  async platformIds(dir: string, kind: SyncKind, ids: string[]): Promise<Array<string | undefined>> {
    if (!ids.length) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hget(this.key(dir, kind, id), "pid");
    const res = (await pipe.exec()) ?? [];
    return res.map(([, v]) => (v as string | null) ?? undefined);
  }

  /**
   * Writes fields and, when `status` is given, moves the resource between status sets, in one script
   * (writeSyncState-5.lua). `undefined` values delete the field.
   */
  async update(dir: string, kind: SyncKind, id: string, patch: Partial<SyncRecord>): Promise<void> {
    const set: string[] = [];
    const del: string[] = [];
    for (const [name, value] of Object.entries(patch) as Array<[keyof SyncRecord, unknown]>) {
      if (value === undefined) del.push(FIELD[name]);
      else set.push(FIELD[name], String(value));
    }
    if (patch.status) set.push("t", new Date().toISOString());
    const keys = this.keys(dir);
    // the status as the position of its set among the script's keys (0: none)
    const status = patch.status ? SYNC_STATUSES.indexOf(patch.status) + 2 : 0;
    await this.scripts.writeSyncState(this.key(dir, kind, id), ...SYNC_STATUSES.map((s) => keys.status(s)) as [string, string, string, string],
      `${k(kind)}:${id}`, String(status), String(set.length / 2), ...set, ...del);
  }

  /** Forgets a resource (after it is gone from both sides). */
  async remove(dir: string, kind: SyncKind, id: string): Promise<void> {
    const multi = this.redis.multi().del(this.key(dir, kind, id));
    for (const s of SYNC_STATUSES) multi.srem(this.statusKey(dir, s), `${k(kind)}:${id}`);
    // UNLINK: a large group's member sets are freed off Redis's main thread
    if (kind === "group") multi.unlink(this.appliedMembersKey(dir, id), this.keys(dir).stagedMembers(id), ...this.changedMembersKeys(dir, id));
    await multi.exec();
  }

  /** Number of resources per status. */
  async counts(dir: string): Promise<Record<SyncStatus, number>> {
    const pipe = this.redis.pipeline();
    for (const s of SYNC_STATUSES) pipe.scard(this.statusKey(dir, s));
    const res = (await pipe.exec()) ?? [];
    return Object.fromEntries(SYNC_STATUSES.map((s, i) => [s, Number(res[i][1] ?? 0)])) as Record<SyncStatus, number>;
  }

  /** `{kind, id}` of every resource in a status. */
  async inStatus(dir: string, status: SyncStatus): Promise<Array<{ kind: SyncKind; id: string }>> {
    const members = await this.redis.smembers(this.statusKey(dir, status));
    return members.map((m) => ({ kind: m.startsWith("u:") ? "user" : "group", id: m.slice(2) }));
  }

  /** Every resource the bridge has sync state for, of one kind (to find what the IdP no longer has). */
  async known(dir: string, kind: SyncKind): Promise<string[]> {
    const out: string[] = [];
    for (const s of SYNC_STATUSES) {
      for (const m of await this.redis.smembers(this.statusKey(dir, s))) if (m.startsWith(`${k(kind)}:`)) out.push(m.slice(2));
    }
    return out;
  }

  /** Members of an applied-members set, read in slices (member-slices.ts). */
  members(key: string): Promise<string[]> {
    return setMembers(this.redis, key);
  }

  /** Adds and removes ids of an applied-members set, MEMBER_SLICE per command; not one MULTI, which runs as one block. */
  async applyMembers(key: string, add: string[], remove: string[]): Promise<void> {
    const p = this.redis.pipeline();
    for (let i = 0; i < add.length; i += MEMBER_SLICE) p.sadd(key, ...add.slice(i, i + MEMBER_SLICE));
    for (let i = 0; i < remove.length; i += MEMBER_SLICE) p.srem(key, ...remove.slice(i, i + MEMBER_SLICE));
    await p.exec();
  }

  /** Remembers embed-tenant group names the bridge has applied (`P s:embed-groups`), for resync. */
  async trackEmbedGroups(dir: string, names: string[]): Promise<void> {
    if (names.length) await this.redis.sadd(this.keys(dir).embedGroups, ...names);
  }

  /** Embed-tenant group names the bridge has applied. */
  embedGroups(dir: string): Promise<string[]> {
    return this.redis.smembers(this.keys(dir).embedGroups);
  }

  /** Forgets an applied embed-tenant group name (after the resync deleted the group). */
  async untrackEmbedGroup(dir: string, name: string): Promise<void> {
    await this.redis.srem(this.keys(dir).embedGroups, name);
  }

  async redisDel(...keys: string[]): Promise<void> {
    await this.redis.unlink(...keys);
  }

  async meta(dir: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.metaKey(dir));
  }

  /** Takes the check of the directory's platform key `fingerprint` for `ttlMs` (SET NX PX): false while another worker holds it. */
  async claimKeyCheck(dir: string, fingerprint: string, holder: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.keys(dir).keyCheck(fingerprint), holder, "PX", ttlMs, "NX")) === "OK";
  }

  /**
   * Ends a key check (its record now stands for the key). A check that outlived its claim may end another
   * worker's: then a third worker may check the same key too, which costs one call and harms nothing.
   */
  async releaseKeyCheck(dir: string, fingerprint: string): Promise<void> {
    await this.redis.del(this.keys(dir).keyCheck(fingerprint));
  }

  /** Sets one field of the sync meta unless it is set (HSETNX): true when this call set it. */
  async setMetaIfAbsent(dir: string, field: string, value: string): Promise<boolean> {
    return (await this.redis.hsetnx(this.metaKey(dir), field, value)) === 1;
  }

  /** Sets (or, for `undefined`, deletes) directory-level fields of the sync meta. */
  async setMeta(dir: string, fields: Record<string, string | undefined>): Promise<void> {
    const set = Object.entries(fields).filter(([, v]) => v !== undefined).flatMap(([f, v]) => [f, v as string]);
    const del = Object.entries(fields).filter(([, v]) => v === undefined).map(([f]) => f);
    // one command where one does (a worker records lastSyncAt and its key's health this way): an ioredis
    // MULTI builds a Pipeline, which copies every script defined on the connection (BullMQ's and ours),
    // and a cluster worker's profile showed those copies as ~10% of its CPU
    if (!del.length) {
      if (set.length) await this.redis.hset(this.metaKey(dir), ...set);
      return;
    }
    if (!set.length) {
      await this.redis.hdel(this.metaKey(dir), ...del);
      return;
    }
    await this.redis.multi().hset(this.metaKey(dir), ...set).hdel(this.metaKey(dir), ...del).exec();
  }
}
