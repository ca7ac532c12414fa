/**
 * Loads the Lua scripts of `commands/` (named `<name>-<numKeys>.lua`, BullMQ's convention, or `<name>-n.lua`
 * when the number of keys varies per call: callers then pass the count first) as ioredis custom commands,
 * so they run with EVALSHA and are re-sent automatically after a Redis restart. A line
 * `-- @include <name>` pulls in `commands/includes/<name>.lua` (code several scripts share). This is the
 * bridge's one way to run Lua: no script text in TypeScript, no plain EVAL.
 *
 * Every key a script touches comes in KEYS, built in TypeScript by the key builders (keys.ts and each
 * concern's *-keys.ts), so Redis Cluster checks it against the slot the call was routed to. The one
 * exception are keys a script finds in data (the ids an index holds, the groups a user is in), which no
 * caller can name before the script runs: for those the caller passes the directory's prefix in KEYS, and
 * the script appends the family's suffix. A script never builds a key from ARGV
 * (test/store/lua-scripts.test.ts). Replies of write scripts become results and errors in script-replies.ts.
 */
import fs from "node:fs";
import path from "node:path";
import type { RedisConnection } from "./connection";

/** The store's scripts, as ioredis exposes them after `defineStoreCommands`. */
export interface StoreCommands {
  /** Keys counted per call (`<name>-n.lua`): the number of keys first, then the keys, then the arguments. */
  writeUser(numKeys: number, ...keysThenArgs: string[]): Promise<string[]>;
  deleteUser(...keysThenArgs: string[]): Promise<string[]>;
  readUsers(numKeys: number, ...keysThenArgs: string[]): Promise<string[][]>;
  /** The 19 keys of writeGroup-19.lua, then its arguments. */
  writeGroup(...keysThenArgs: string[]): Promise<string[]>;
  /** The 14 keys of deleteGroup-14.lua, then its arguments. */
  deleteGroup(...keysThenArgs: string[]): Promise<string[]>;
  /** The 8 keys of stageGroupMembers-8.lua, then its arguments. */
  stageGroupMembers(...keysThenArgs: string[]): Promise<string[]>;
  /** The 16 keys of publishGroupMembers-16.lua, then its arguments. */
  publishGroupMembers(...keysThenArgs: string[]): Promise<string[]>;
  readGroups(numKeys: number, ...keysThenArgs: string[]): Promise<Array<Array<string | number>>>;
  /** Keys counted per call (groupMemberDelta-n.lua): the number of keys first. */
  groupMemberDelta(numKeys: number, ...keysThenArgs: string[]): Promise<number | string[][]>;
  settleGroupMembers(changed: string, applied: string, staged: string, ...args: string[]): Promise<number>;
  markMembersChanged(prefix: string, changeSeq: string, memberOfQueue: string, memberOf: string, largeGroups: string, ...args: string[]): Promise<string[]>;
  drainMemberOf(queue: string, prefix: string, budget: string): Promise<number>;
  settleWrite(marker: string, ttlSeconds: string): Promise<string | null>;
  writeSyncState(record: string, pending: string, synced: string, failed: string, deprovisioned: string, ...args: string[]): Promise<number>;
  resyncSettle(pending: string, progress: string, lock: string, ...args: string[]): Promise<number>;
  resyncAnswer(progress: string, pending: string, lock: string, audit: string, held: string, ...args: string[]): Promise<[number, string, number?]>;
  brakeAdmit(window: string, held: string, released: string, pass: string, synced: string, state: string, ...args: string[]): Promise<"pass" | "held" | "engaged" | "released">;
  handOverOwner(owners: string, resource: string, to: string, from: string): Promise<[number, string]>;
  /** Keys counted per call (`<name>-n.lua`): the number of keys first, then the keys, then the arguments. */
  backfillSortIndex(numKeys: number, ...keysThenArgs: string[]): Promise<number>;
  appendRequestLog(log: string, index: string, ...args: string[]): Promise<string>;
  claimOwner(owners: string, resource: string, dir: string): Promise<string>;
  forgetOwner(owners: string, resource: string, dir: string): Promise<number>;
  claimName(byName: string, byId: string, waiting: string, id: string, name: string, displace: string): Promise<[number, string]>;
  letGoName(byName: string, byId: string, id: string, name: string): Promise<string>;
  countAuthFailure(counter: string, windowSeconds: string): Promise<[number, number]>;
  reserveExternalUser(set: string, externalId: string, limit: string): Promise<[number, number, number]>;
  acquireRateWindow(window: string, nowMs: string, windowMs: string, max: string, token: string, ...restamps: string[]): Promise<number>;
  appendActivity(numKeys: number, ...keysThenArgs: string[]): Promise<number>;
  writeMinuteCounters(numKeys: number, ...keysThenArgs: string[]): Promise<number>;
}

const COMMANDS_DIR = path.join(__dirname, "commands");
const INCLUDES_DIR = path.join(COMMANDS_DIR, "includes");

/** The script's text with each `-- @include <name>` line replaced by `includes/<name>.lua` (BullMQ's includes, simplified). */
function withIncludes(lua: string): string {
  return lua.replace(/^-- @include (\w+)$/gm, (_, name: string) => fs.readFileSync(path.join(INCLUDES_DIR, `${name}.lua`), "utf8"));
}
const defined = new WeakSet<RedisConnection>();

/** Defines every script on `redis` once; returns it typed with the commands. */
export function defineStoreCommands(redis: RedisConnection): RedisConnection & StoreCommands {
  if (!defined.has(redis)) {
    for (const file of fs.readdirSync(COMMANDS_DIR)) {
      // `-n`: a script whose callers pass a number of keys that varies per call (a slice of records)
      const m = /^(\w+)-(\d+|n)\.lua$/.exec(file);
      if (!m) continue;
      const lua = withIncludes(fs.readFileSync(path.join(COMMANDS_DIR, file), "utf8"));
      redis.defineCommand(m[1], m[2] === "n" ? { lua } : { numberOfKeys: Number(m[2]), lua });
    }
    defined.add(redis);
  }
  return redis as RedisConnection & StoreCommands;
}
