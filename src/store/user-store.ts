/**
 * Users of a directory in Redis: atomic writes (with their outbox entry) and reads in one round trip.
 * Indexed values (userName, externalId, emails, displayName) are derived here from the body.
 */
import type { RedisConnection } from "./connection";
import { idsAfterSeq, seqsOfIds } from "./creation-order";
import { foldUserName } from "./user-name-fold";
import { DirectoryKeys } from "./keys";
import { defineStoreCommands, type StoreCommands } from "./scripts";
import { acceptedReply, writeResult } from "./script-replies";
import type { ReplicaAck } from "./replica-ack";
import { settledWrite } from "./write-settle";
import { outboxSignalOf, type OutboxSignal } from "./outbox-signal";
import type { Json, UserRecord, WriteOptions, WriteResult } from "./types";

/** Index lookups the store answers without a scan. */
export type UserIndex = "id" | "userName" | "externalId" | "email" | "displayName";
const INDEX_OF: Record<Exclude<UserIndex, "id">, "un" | "uxs" | "ue" | "udn"> = { userName: "un", externalId: "uxs", email: "ue", displayName: "udn" };

/** A row of readUsers-n.lua: {id, d, v, c, m, groupId1, groupDisplayName1, …} (no group pairs in mode "bare"). */
function userRecordOf(row: string[]): UserRecord {
  const groups = [];
  for (let i = 5; i < row.length; i += 2) groups.push({ value: row[i], display: row[i + 1] });
  return { id: row[0], body: JSON.parse(row[1]) as Json, version: Number(row[2]), created: row[3], lastModified: row[4], groups };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** Lower-cases and strips characters that would break the "\n" and "\0" separators of the indexes. */
function norm(s: string): string {
  return s.toLowerCase().replace(/[\n\0]/g, " ");
}

/** Index values of a user body (exported for tests and the sync engine). */
export function userIndexValues(body: Json): { userName: string; externalId: string; emails: string[]; displayName: string } {
  const emails = Array.isArray(body.emails)
    ? (body.emails as Json[]).map((e) => str(e?.value)).filter((e): e is string => !!e).map(norm)
    : [];
  return {
    userName: foldUserName(str(body.userName) ?? ""),
    externalId: (str(body.externalId) ?? "").replace(/[\n\0]/g, " "),
    emails: [...new Set(emails)],
    displayName: norm(str(body.displayName) ?? ""),
  };
}

/** Users of every directory, on one Redis connection (writes on a second one with `replicaAck`). */
export class UserStore {
  private readonly redis: RedisConnection & StoreCommands;
  /** Where writes run: `redis`, or the replica-acknowledged connection of `replicaAck`. */
  private readonly writer: RedisConnection & StoreCommands;
  private readonly signal: OutboxSignal;
  /**
   * `writeSettleMs`: how long a write whose answer was lost waits for Redis to settle it (write-settle.ts);
   * `replicaAck`: writes are answered once replicas hold them (replica-ack.ts).
   */
  constructor(redis: RedisConnection, private readonly keyPrefix: string, private readonly writeSettleMs = 10000, private readonly replicaAck?: ReplicaAck) {
    this.redis = defineStoreCommands(redis);
    this.writer = replicaAck ? defineStoreCommands(replicaAck.connection) : this.redis;
    this.signal = outboxSignalOf(redis, keyPrefix);
  }

  keys(directoryId: string): DirectoryKeys {
    return new DirectoryKeys(this.keyPrefix, directoryId);
  }

  /** The Redis connection (for small helpers that share it). */
  /** The replica acknowledgement this store's writes wait for, if `redis.replicaAck` asks for one. */
  get ack(): ReplicaAck | undefined {
    return this.replicaAck;
  }

  get connection(): RedisConnection {
    return this.redis;
  }

  /** Creates (`mode: "create"`) or replaces (`"update"`) a user; `expectedVersion` is a compare-and-set. */
  async write(directoryId: string, id: string, body: Json, mode: "create" | "update", expectedVersion?: number, opts: WriteOptions = {}): Promise<WriteResult> {
    const k = this.keys(directoryId);
    const ix = userIndexValues(body);
    const now = new Date().toISOString();
    // a create names the lost-create fingerprint it checks (scim/lost-creates/): the optional last key
    const lost = mode === "create" && opts.lostCreate ? [k.lostCreate("u", opts.lostCreate)] : [];
    const r = await settledWrite(this.writer, k.prefix, this.writeSettleMs, (rid, ttl) => {
      const keys = [k.user(id), k.users, k.seq, k.userIds, k.index("un"), k.index("uxs"), k.index("ue"), k.index("udn"),
        k.sortIndex("u", "un"), k.sortIndex("u", "dn"), k.sortIndex("u", "m"), k.outbox, k.request(rid), ...lost];
      return this.writer.writeUser(keys.length, ...keys, id, mode, expectedVersion === undefined ? "" : String(expectedVersion), now,
        JSON.stringify(body), ix.userName, ix.externalId, ix.emails.join("\n"), ix.displayName, opts.uniqueExternalId ? "1" : "", ttl);
    }, this.replicaAck);
    const result = writeResult("User", id, r);
    if (result.changed) this.signal.notify(directoryId);
    return result;
  }

  /** Deletes a user and its memberships. */
  async delete(directoryId: string, id: string, expectedVersion?: number): Promise<void> {
    const k = this.keys(directoryId);
    const now = new Date().toISOString();
    const r = await settledWrite(this.writer, k.prefix, this.writeSettleMs, (rid, ttl) => this.writer.deleteUser(
      k.prefix, k.user(id), k.users, k.userIds, k.index("un"), k.index("uxs"), k.index("ue"), k.index("udn"),
      k.sortIndex("u", "un"), k.sortIndex("u", "dn"), k.sortIndex("u", "m"), k.outbox, k.memberOf(id), k.changeSeq, k.sortIndex("g", "m"), k.request(rid),
      id, expectedVersion === undefined ? "" : String(expectedVersion), now, ttl), this.replicaAck);
    acceptedReply("User", id, r);
    this.signal.notify(directoryId);
  }

  /** Users by id or by an index (userName compared folded, user-name-fold.ts; email/displayName lower-cased). */
  async find(directoryId: string, index: UserIndex, values: string[]): Promise<UserRecord[]> {
    if (values.length === 0) return [];
    const k = this.keys(directoryId);
    const vals = index === "id" || index === "externalId" ? values : values.map(index === "userName" ? foldUserName : norm);
    return this.read(k, index === "id" ? "ids" : INDEX_OF[index], vals);
  }

  /** One user by id, or undefined. */
  async get(directoryId: string, id: string): Promise<UserRecord | undefined> {
    return (await this.find(directoryId, "id", [id]))[0];
  }

  /**
   * One user by id without its groups (`groups` is empty), or undefined: for a reader that does not use
   * them (the workforce reconcile; User.groups is read-only and not sent to the platform). A user in five
   * groups is one HMGET instead of a reverse-index read and five group-name reads.
   */
  async getWithoutGroups(directoryId: string, id: string): Promise<UserRecord | undefined> {
    const k = this.keys(directoryId);
    return (await this.read(k, "bare", [id]))[0];
  }

  /** readUsers-n.lua: by id (`ids`, `bare`: their records' keys) or through an index (its key). */
  private async read(k: DirectoryKeys, mode: string, values: string[]): Promise<UserRecord[]> {
    const keys = mode === "ids" || mode === "bare" ? values.map((id) => k.user(id)) : [k.index(mode as "un" | "uxs" | "ue" | "udn")];
    const rows = await this.redis.readUsers(1 + keys.length, k.prefix, ...keys, mode, ...values);
    return rows.map(userRecordOf);
  }

  /** Number of users in the directory. */
  count(directoryId: string): Promise<number> {
    return this.redis.zcard(this.keys(directoryId).users);
  }

  /** User ids in creation order, `start` 0-based, inclusive `stop` (-1 = to the end). */
  ids(directoryId: string, start = 0, stop = -1): Promise<string[]> {
    return this.redis.zrange(this.keys(directoryId).users, String(start), String(stop));
  }

  /**
   * Up to `limit` user ids created after creation sequence `after` (0: from the first), in creation order,
   * and the sequence of the last one: a cursor that stays right while users are added or deleted meanwhile.
   */
  async idsAfter(directoryId: string, after: number, limit: number): Promise<{ ids: string[]; seqs: number[]; last: number }> {
    return idsAfterSeq(this.redis, this.keys(directoryId).users, after, limit);
  }

  /** The creation sequence of each id (null for an id that does not exist), read in slices. */
  async seqsOf(directoryId: string, ids: string[]): Promise<Array<number | null>> {
    return seqsOfIds(this.redis, this.keys(directoryId).users, ids);
  }
}
