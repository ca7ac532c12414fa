/**
 * The bridge's whole Redis key space, one row per key family, each naming the module that builds it (a path
 * under src/; each concern's key builder lives beside its store, e.g. src/sync/resync/resync-keys.ts), except
 * BullMQ's queue keys, which BullMQ builds under the prefix src/sync/jobs.ts gives it.
 * docs/operations.md "Key space" is this table for operators; test/store/key-space.test.ts checks that
 * every key a running bridge writes matches a row here, that the docs list every row, and that keys are
 * built only in the modules named here.
 *
 * `<kp>` is `redis.keyPrefix`, `<dir>` a directory id. Keys of one directory carry the hash tag `{<dir>}`,
 * so on Redis Cluster they live in one hash slot and every script touching them runs on one shard.
 */

export interface KeyFamily {
  /** The key's shape as documented. */
  pattern: string;
  type: string;
  /** The module that builds it: a path under src/, then what in it, if not the whole module. */
  module: string;
  /** Matches keys of this family under key prefix `kp`. */
  match(kp: string): RegExp;
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const dir = (kp: string, rest: string) => new RegExp(`^${esc(kp)}:\\{[a-z0-9-]+\\}:${rest}$`);

export const KEY_FAMILIES: KeyFamily[] = [
  { pattern: "<kp>:{<dir>}:u:<id>", type: "HASH", module: "store/keys.ts", match: (kp) => dir(kp, "u:.+") },
  { pattern: "<kp>:{<dir>}:users", type: "ZSET", module: "store/keys.ts", match: (kp) => dir(kp, "users") },
  { pattern: "<kp>:{<dir>}:uids", type: "SET", module: "store/keys.ts", match: (kp) => dir(kp, "uids") },
  { pattern: "<kp>:{<dir>}:g:<id>", type: "HASH", module: "store/keys.ts", match: (kp) => dir(kp, "g:.+") },
  { pattern: "<kp>:{<dir>}:gm:<id>", type: "HASH", module: "store/keys.ts", match: (kp) => dir(kp, "gm:.+") },
  { pattern: "<kp>:{<dir>}:gmw:<id>:<token>", type: "HASH", module: "store/keys.ts (group-write-slices.ts)", match: (kp) => dir(kp, "gmw:.+:.+") },
  { pattern: "<kp>:{<dir>}:groups", type: "ZSET", module: "store/keys.ts", match: (kp) => dir(kp, "groups") },
  { pattern: "<kp>:{<dir>}:mg:<value>", type: "SET", module: "store/keys.ts", match: (kp) => dir(kp, "mg:.+") },
  { pattern: "<kp>:{<dir>}:lg", type: "SET", module: "store/keys.ts", match: (kp) => dir(kp, "lg") },
  { pattern: "<kp>:{<dir>}:seq", type: "STRING", module: "store/keys.ts", match: (kp) => dir(kp, "seq") },
  { pattern: "<kp>:{<dir>}:mgq", type: "STREAM", module: "store/member-of-drain.ts", match: (kp) => dir(kp, "mgq") },
  { pattern: "<kp>:{<dir>}:rq:<request>", type: "STRING", module: "store/keys.ts (write-settle.ts)", match: (kp) => dir(kp, "rq:.+") },
  { pattern: "<kp>:{<dir>}:lc:<u|g>:<sha256>", type: "STRING", module: "store/keys.ts (scim/lost-creates/)", match: (kp) => dir(kp, "lc:[ug]:[0-9a-f]{64}") },
  { pattern: "<kp>:{<dir>}:ix:<un|uxs|ue|udn|gns|gxs>", type: "HASH or ZSET", module: "store/keys.ts", match: (kp) => dir(kp, "ix:(un|uxs|ue|udn|gns|gxs)") },
  { pattern: "<kp>:{<dir>}:sx:<u|g>:<un|dn|m>", type: "ZSET", module: "store/keys.ts", match: (kp) => dir(kp, "sx:(u:(un|dn|m)|g:(dn|m))") },
  { pattern: "<kp>:{<dir>}:sx:ready", type: "STRING", module: "store/keys.ts", match: (kp) => dir(kp, "sx:ready") },
  { pattern: "<kp>:{<dir>}:outbox", type: "STREAM", module: "store/keys.ts", match: (kp) => dir(kp, "outbox") },
  { pattern: "<kp>:{<dir>}:s:<u|g>:<id>", type: "HASH", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:[ug]:.+") },
  { pattern: "<kp>:{<dir>}:s:gm:<id>", type: "SET", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:gm:.+") },
  { pattern: "<kp>:{<dir>}:s:gms:<id>", type: "SET", module: "sync/state/sync-state-keys.ts (member-delta.ts)", match: (kp) => dir(kp, "s:gms:.+") },
  { pattern: "<kp>:{<dir>}:s:gch:<id>", type: "HASH", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:gch:.+") },
  { pattern: "<kp>:{<dir>}:s:gc:<id>", type: "ZSET", module: "sync/state/sync-state-keys.ts (earlier releases, until merged)", match: (kp) => dir(kp, "s:gc:.+") },
  { pattern: "<kp>:{<dir>}:s:gcseq", type: "STRING", module: "store/commands/*.lua (inside the directory prefix)", match: (kp) => dir(kp, "s:gcseq") },
  { pattern: "<kp>:{<dir>}:s:revive", type: "ZSET", module: "store/keys.ts (reviveKeys)", match: (kp) => dir(kp, "s:revive") },
  { pattern: "<kp>:{<dir>}:s:revive:n", type: "HASH", module: "store/keys.ts (reviveKeys)", match: (kp) => dir(kp, "s:revive:n") },
  { pattern: "<kp>:{<dir>}:s:claim:<space>", type: "HASH", module: "sync/ownership/name-claims.ts", match: (kp) => dir(kp, "s:claim:[a-z-]+") },
  { pattern: "<kp>:{<dir>}:s:claimed:<space>", type: "HASH", module: "sync/ownership/name-claims.ts", match: (kp) => dir(kp, "s:claimed:[a-z-]+") },
  { pattern: "<kp>:{<dir>}:s:claim-wait:<space>:<name>", type: "SET", module: "sync/ownership/name-claims.ts", match: (kp) => dir(kp, "s:claim-wait:[a-z-]+:.*") },
  { pattern: "<kp>:{<dir>}:s:st:<status>", type: "SET", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:st:(pending|synced|failed|deprovisioned)") },
  { pattern: "<kp>:{<dir>}:s:meta", type: "HASH", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:meta") },
  { pattern: "<kp>:{<dir>}:s:key-check:<fingerprint>", type: "STRING", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:key-check:[0-9a-f]{16}") },
  { pattern: "<kp>:{<dir>}:s:embed-groups", type: "SET", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:embed-groups") },
  { pattern: "<kp>:{<dir>}:s:rate", type: "ZSET", module: "sync/state/sync-state-keys.ts", match: (kp) => dir(kp, "s:rate") },
  { pattern: "<kp>:{<dir>}:q:<backlog|inflight|retrying|share>", type: "ZSET or STRING", module: "store/queue-keys.ts", match: (kp) => dir(kp, "q:(backlog|inflight|retrying|share)") },
  { pattern: "<kp>:{<dir>}:resync", type: "HASH", module: "sync/resync/resync-keys.ts", match: (kp) => dir(kp, "resync") },
  { pattern: "<kp>:{<dir>}:resync:pending", type: "SET", module: "sync/resync/resync-keys.ts", match: (kp) => dir(kp, "resync:pending") },
  { pattern: "<kp>:{<dir>}:resync:lock", type: "STRING", module: "sync/resync/resync-keys.ts", match: (kp) => dir(kp, "resync:lock") },
  { pattern: "<kp>:{<dir>}:resync:held", type: "HASH", module: "sync/resync/resync-keys.ts", match: (kp) => dir(kp, "resync:held") },
  { pattern: "<kp>:{<dir>}:resync:plan", type: "STRING", module: "sync/resync/resync-keys.ts", match: (kp) => dir(kp, "resync:plan") },
  { pattern: "<kp>:{<dir>}:resync:audit", type: "LIST", module: "sync/resync/resync-keys.ts", match: (kp) => dir(kp, "resync:audit") },
  { pattern: "<kp>:{<dir>}:brake:<window|held|released|pass|audit>", type: "ZSET, HASH or LIST", module: "sync/brake/brake-store.ts", match: (kp) => dir(kp, "brake:(window|held|released|pass|audit)") },
  { pattern: "<kp>:{<dir>}:a:<u|g>:<id>", type: "STREAM", module: "activity/activity-store.ts", match: (kp) => dir(kp, "a:[ug]:.+") },
  { pattern: "<kp>:{<dir>}:c:<series>", type: "HASH", module: "activity/minute-counters.ts", match: (kp) => dir(kp, "c:[a-z-]+") },
  { pattern: "<kp>:{<dir>}:rl", type: "STREAM", module: "scim/request-log/request-log-keys.ts", match: (kp) => dir(kp, "rl") },
  { pattern: "<kp>:{<dir>}:rl:ids", type: "HASH", module: "scim/request-log/request-log-keys.ts", match: (kp) => dir(kp, "rl:ids") },
  { pattern: "<kp>:{<dir>}:credentials", type: "HASH", module: "directories/registry-keys.ts", match: (kp) => dir(kp, "credentials") },
  { pattern: "<kp>:{<dir>}:credentials:used", type: "HASH", module: "directories/registry-keys.ts", match: (kp) => dir(kp, "credentials:used") },
  { pattern: "<kp>:{<dir>}:oauth:at:<sha256>", type: "STRING", module: "directories/registry-keys.ts", match: (kp) => dir(kp, "oauth:at:[0-9a-f]+") },
  { pattern: "<kp>:directories", type: "HASH", module: "directories/registry-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:directories$`) },
  { pattern: "<kp>:directories:version", type: "STRING", module: "directories/registry-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:directories:version$`) },
  { pattern: "<kp>:directories:disabled", type: "SET", module: "directories/registry-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:directories:disabled$`) },
  { pattern: "<kp>:directories:audit", type: "LIST", module: "directories/registry-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:directories:audit$`) },
  { pattern: "<kp>:{<dir>}:authfail:<address>", type: "STRING", module: "auth/auth-failure-keys.ts", match: (kp) => dir(kp, "authfail:.+") },
  { pattern: "<kp>:authfail:invalid-directory:<address>", type: "STRING", module: "auth/auth-failure-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:authfail:invalid-directory:.+$`) },
  { pattern: "<kp>:admin:authfail:<address>", type: "STRING", module: "auth/auth-failure-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:admin:authfail:.+$`) },
  { pattern: "<kp>:admin:session:<id>", type: "STRING", module: "auth/admin-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:admin:session:[A-Za-z0-9_-]+$`) },
  { pattern: "<kp>:acct:<sha1(account)>:owner:<space>", type: "HASH", module: "accounts/account-keys.ts (sync/ownership/ownership-store.ts)", match: (kp) => new RegExp(`^${esc(kp)}:acct:[0-9a-f]{40}:owner:.+$`) },
  { pattern: "<kp>:{acct-<hash>}:rate", type: "ZSET", module: "store/keys.ts (platformAccountRateKey)", match: (kp) => new RegExp(`^${esc(kp)}:\\{acct-[0-9a-f]{16}\\}:rate$`) },
  { pattern: "<kp>:acct:<sha1(account)>:external-users", type: "SET", module: "accounts/account-keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:acct:[0-9a-f]{40}:external-users$`) },
  { pattern: "<kp>:outbox:news", type: "ZSET", module: "store/outbox-signal.ts", match: (kp) => new RegExp(`^${esc(kp)}:outbox:news$`) },
  { pattern: "<kp>:key-vars", type: "ZSET", module: "store/keys.ts (keyVarsKey)", match: (kp) => new RegExp(`^${esc(kp)}:key-vars$`) },
  { pattern: "<kp>:metrics:salt", type: "STRING", module: "store/keys.ts", match: (kp) => new RegExp(`^${esc(kp)}:metrics:salt$`) },
  { pattern: "<kp>:scim:cursor-key", type: "STRING", module: "store/keys.ts (scim/cursor/cursor-key-store.ts)", match: (kp) => new RegExp(`^${esc(kp)}:scim:cursor-key$`) },
  { pattern: "{<kp>…}:<queue>:…", type: "BullMQ", module: "store/queue-keys.ts (shard prefix {<kp>:q<n>}; BullMQ builds the rest)", match: (kp) => new RegExp(`^\\{${esc(kp)}[^}]*\\}:.+$`) },
];
