/**
 * Every Redis key of the directory store, built in one place.
 *
 * Layout (P = `<keyPrefix>:{<directoryId>}:` — the braces are a hash tag, so all of one directory's keys
 * live on one Redis Cluster slot and each atomic script touches a single shard):
 *
 *   P u:<id>       HASH   user: d (body JSON without id/meta), v (version), c (created), m (lastModified),
 *                         un (lower userName), x (externalId), e (lower emails, \n-separated), n (lower displayName)
 *   P users        ZSET   user ids scored by creation sequence: the stable order of list paging
 *   P uids         SET    the same user ids, for writeGroup's check that members are users (one SMISMEMBER
 *                         costs Redis less per id than an EXISTS of its u: key or a ZMSCORE on users);
 *                         writeUser adds, deleteUser removes, and a user a group write finds in P users but
 *                         not here is added then, so the check never wrongly refuses a user
 *   P g:<id>       HASH   group: d (body JSON without id/meta/members), v, c, m, n (lower displayName),
 *                         x (externalId), dn (displayName as sent)
 *   P gm:<id>      HASH   the group's members: value → "<U|G><display>" (U = user, G = group)
 *   P gmw:<id>:<token> HASH a sliced write's new members of group <id>, staged slice by slice and renamed
 *                         to gm:<id> by its publish (group-write-slices.ts); expires 600 s after its last slice
 *   P groups       ZSET   group ids scored by creation sequence
 *   P mg:<value>   SET    ids of the groups that <value> (a user or group id) is a member of: the reverse
 *                         index, brought up to date from P mgq after the member write has answered.
 *                         Large groups (P lg) are left out: readers check their member hashes instead
 *   P lg           SET    ids of the directory's large groups: groups that reached scim.largeGroupMembers
 *                         members (at most scim.largeGroupsPerDirectory); they stay large until deleted
 *   P mgq          STREAM membership changes not yet in the reverse index: g (group id), a (values that
 *                         joined), r (values that left), "\n"-separated. Every script that reads mg:
 *                         applies it first (commands/includes/drainMemberOf.lua), so readers see mg: exact
 *   P seq          STRING creation sequence counter
 *   P rq:<request> STRING the reply of a committed write, kept 120 s, so a write whose answer was lost can
 *                         be settled (write-settle.ts); "ABANDONED" once settlement gave it up
 *   P lc:<u|g>:<sha256> STRING the id a create was given when its answer was lost, for an identical retry
 *                         (scim/lost-creates/); EX scim.lostCreateSeconds
 *   P ix:un        HASH   fold(userName) → user id           (unique: RFC 7643 §4.1.1; user-name-fold.ts)
 *   P ix:uxs       ZSET   "<externalId>\0<user id>"          (lexicographic, non-unique, case-exact: §3.1)
 *   P ix:ue        ZSET   "<lower email>\0<user id>"         (lexicographic, non-unique)
 *   P ix:udn       ZSET   "<lower displayName>\0<user id>"   (lexicographic, non-unique)
 *   P ix:gns       ZSET   "<lower displayName>\0<group id>"  (lexicographic, non-unique: §4.2)
 *   P ix:gxs       ZSET   "<externalId>\0<group id>"         (lexicographic, non-unique)
 *   P s:gch:<id>   HASH   ids of the members whose membership of group <id> changed since its last reconcile
 *                         (the sync engine's key, see sync-state.ts; writeGroup and deleteUser add to it)
 *   P sx:u:<un|dn|m> ZSET  users' sort indexes (userName, displayName, lastModified): "<key>\0<user id>", score 0
 *   P sx:g:<dn|m>  ZSET   groups' sort indexes (displayName, lastModified): "<key>\0<group id>", score 0;
 *                         keys lower-cased, a missing value "\xff" (sorts last); see commands/includes/sortIndex.lua
 *   P sx:ready     STRING "1" once every record older than the sort indexes was added to them
 *   P outbox       STREAM the outbox: one entry per accepted change, appended by the same script that
 *                         writes the change. Fields: k ("user" | "group"), id, v (version after the
 *                         change), op ("delete" on deletes; absent otherwise). The sync engine reads it
 *                         with a consumer group, enqueues a reconcile of (directory, k, id) — which reads
 *                         the latest desired state, never the entry — and acks; entries a crashed reader
 *                         left pending are reclaimed (XAUTOCLAIM), which is the sweeper.
 */
import { createHash } from "node:crypto";
import { accountIdentity } from "../accounts/account-identity";


/**
 * `<keyPrefix>:{acct-<hash>}:rate`: the call window shared by every directory that syncs into one platform
 * account (the same account identity, src/accounts/account-identity.ts), with its own hash tag (its one-key
 * script runs on any shard). The key expires two windows (`durationMs`) and a minute after the last call it let through.
 */
export function platformAccountRateKey(keyPrefix: string, baseUrl: string): string {
  return `${keyPrefix}:{acct-${createHash("sha256").update(accountIdentity(baseUrl)).digest("hex").slice(0, 16)}}:rate`;
}

/** `<P>rq:<request id>` under directory prefix `prefix` (DirectoryKeys.prefix): a write's settled reply. */
export function settledReplyKey(prefix: string, requestId: string): string {
  return `${prefix}rq:${requestId}`;
}

/** Key builder for one directory. */
export class DirectoryKeys {
  /** `<keyPrefix>:{<directoryId>}:` */
  readonly prefix: string;
  constructor(keyPrefix: string, readonly directoryId: string) {
    this.prefix = `${keyPrefix}:{${directoryId}}:`;
  }
  user(id: string): string { return `${this.prefix}u:${id}`; }
  group(id: string): string { return `${this.prefix}g:${id}`; }
  groupMembers(id: string): string { return `${this.prefix}gm:${id}`; }
  /** The staging hash of one sliced write of group `id` (group-write-slices.ts); `token` is the write's own. */
  stagedGroupMembers(id: string, token: string): string { return `${this.prefix}gmw:${id}:${token}`; }
  /** An index of users (un, uxs, ue, udn) or groups (gns, gxs; gn, gx: earlier releases' hashes). */
  index(name: "un" | "uxs" | "ue" | "udn" | "gns" | "gxs" | "gn" | "gx"): string { return `${this.prefix}ix:${name}`; }
  /** A group's changed members, for its reconcile (sync-state-keys.ts documents it), and their change counter. */
  changedMembers(id: string): string { return `${this.prefix}s:gch:${id}`; }
  get changeSeq(): string { return `${this.prefix}s:gcseq`; }
  get seq(): string { return `${this.prefix}seq`; }
  /** The kept reply of a committed write (write-settle.ts). */
  request(requestId: string): string { return settledReplyKey(this.prefix, requestId); }
  memberOf(value: string): string { return `${this.prefix}mg:${value}`; }
  get users(): string { return `${this.prefix}users`; }
  get userIds(): string { return `${this.prefix}uids`; }
  get groups(): string { return `${this.prefix}groups`; }
  get largeGroups(): string { return `${this.prefix}lg`; }
  get outbox(): string { return `${this.prefix}outbox`; }
  /** The id a create of a body with this SHA-256 was given when its answer was lost (scim/lost-creates/). */
  lostCreate(kind: "u" | "g", fingerprint: string): string { return `${this.prefix}lc:${kind}:${fingerprint}`; }
  /** Sort index of one attribute (`u`: un, dn, m; `g`: dn, m): "<key>\0<id>" entries (commands/includes/sortIndex.lua). */
  sortIndex(kind: "u" | "g", attr: "un" | "dn" | "m"): string { return `${this.prefix}sx:${kind}:${attr}`; }
  /** Set once every record older than the sort indexes has been added to them (sort-index-backfill). */
  get sortReady(): string { return `${this.prefix}sx:ready`; }
}

/** `<keyPrefix>:scim:cursor-key` STRING: the AES-256-GCM key of RFC 9865 cursors (hex, set once; scim/cursor/). */
export function cursorKeyKey(keyPrefix: string): string {
  return `${keyPrefix}:scim:cursor-key`;
}

/**
 * `<keyPrefix>:key-vars` ZSET: the environment variables the running workers hold, each a truncated
 * SHA-256 of its name scored by the time its last advertisement expires (src/sync/key-vars/).
 */
export function keyVarsKey(keyPrefix: string): string {
  return `${keyPrefix}:key-vars`;
}

/** `<keyPrefix>:metrics:salt` STRING: the random salt of the opaque directory labels of /metrics (set once). */
export function metricsSaltKey(keyPrefix: string): string {
  return `${keyPrefix}:metrics:salt`;
}

/**
 * Keys of the revival of a directory's items that failed on transient errors (src/sync/admission/revival.ts):
 * `P s:revive` ZSET "<kind>:<id>" scored by when to queue it again; `P s:revive:n` HASH "<kind>:<id>" → times
 * queued again so far (the exponent of its schedule).
 */
export function reviveKeys(keyPrefix: string, dir: string): { due: string; count: string } {
  const p = new DirectoryKeys(keyPrefix, dir).prefix;
  return { due: `${p}s:revive`, count: `${p}s:revive:n` };
}
