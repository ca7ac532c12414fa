/**
 * Admission of a directory's work into its queue shard (keys: src/store/queue-keys.ts). A directory's
 * reconciles wait in its backlog; at most `concurrency` of them are admitted into the shard's BullMQ queue
 * at a time, and none while the directory is paused or held (429). So a directory with 50,000 resources to
 * resync has at most `concurrency` jobs in the shard at once and a shard-mate's 5 changes queue behind
 * those few, never behind the 50,000; a paused directory's work waits in its backlog, not in the shard.
 *
 * A reconcile waiting out a retry delay gives its slot back meanwhile (one failing item does not stop its
 * directory) and takes it again when it runs; while 2 × `concurrency` of them wait, nothing more is admitted.
 *
 * A resource is never admitted while it is in flight: a change that lands while its reconcile runs waits
 * in the backlog and is admitted when that reconcile finishes (≤ 1 running + ≤ 1 waiting per resource, and
 * two never at once). Every script touches the keys of one directory only (one hash tag, one cluster slot).
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryQueueKeys } from "../../store/queue-keys";
import { ACK_DELETE_LUA } from "../../store/outbox-ack";
import { inlineCommand } from "../../store/scripts";
import { MARK_PENDING_LUA, SyncStateStore, type SyncKind } from "../state/sync-state";
import { kindCode } from "../state/sync-state-keys";

/** The backlog score between members added one after the other (ms; see AdmissionStore.add). */
const STEP = 1e-3;

/**
 * How long a directory's share outlives its last admission. Reset whenever it had nothing in flight, the
 * share of a directory pushed a change every second or so (an IdP working through its users) fell back to
 * 0 between its changes, each of its next jobs went in with the priority of a directory that had been idle,
 * and the first jobs of directories that really had been idle queued behind them (bench/scale, 1,000
 * directories pushed at once: the directories pushed last waited 2.2× the median for their first sync, the
 * wait growing with the place in the push). Kept this long after the last admission, a directory busy in
 * that sense keeps its share; one idle for longer starts again at 0.
 */
export const SHARE_GRACE_MS = 5000;

/** What becomes of a member in the same command that admits the next ones (see ADMIT). */
export type SlotChange = "release" | "retrying" | "waiting";

/*
  Lua: admit(K, cap, now, op, member), where K[1] backlog, K[2] inflight, K[3] meta (HASH; field paused), K[4]
  hold, K[5] retrying, K[6] share (STRING: members admitted since the directory last had nothing in flight for
  longer than SHARE_GRACE_MS, which is how long it lives after each admission);
  cap the directory's concurrency, now (ms), op what became of `member` first: "release" (its job finished:
  out of inflight and retrying), "retrying" (its job waits out a retry delay: inflight → retrying, only if
  still in flight: BullMQ tells of the retry after moving the job to delayed, so under load the retry may
  have run and finished before this arrives), "waiting" (out of inflight) or "" (nothing), member or "".
  Then moves up to cap − |inflight| members from the front of the backlog into inflight, skipping members
  already admitted, unless the directory is paused or held or 2 × cap members wait out a retry delay.
  Returns {n, s, members admitted…} where n is how many were in flight before them (nothing when none is
  admitted), so the caller knows each one's turn: the directory's (n + 1)-th, (n + 2)-th… job in flight;
  and s is how many the directory had admitted before them since it last had nothing admitted (in flight or
  retrying, before op's change: a slot freed and filled in one call is no pause) for longer than
  SHARE_GRACE_MS: its share, 0 for a directory that had been idle.
  (Freeing a slot and filling it are one command: one round trip per finished job.)
*/
const ADMIT_LUA = `
local function admit(K, cap, now, op, member)
  -- members the change took out of the admitted sets (a finished job's slot handed straight on is no pause)
  local freed = 0
  if op == 'release' then
    freed = redis.call('ZREM', K[2], member) + redis.call('ZREM', K[5], member)
  elseif op == 'retrying' then
    -- only while it still holds a slot (a late lend must not park a finished member where ADMIT skips it)
    if redis.call('ZREM', K[2], member) == 1 then redis.call('ZADD', K[5], now, member) end
  elseif op == 'waiting' then
    freed = redis.call('ZREM', K[2], member)
  end
  if redis.call('HEXISTS', K[3], 'paused') == 1 then return {} end
  if redis.call('EXISTS', K[4]) == 1 then return {} end
  cap = tonumber(cap)
  local retrying = redis.call('ZCARD', K[5])
  if retrying >= 2 * cap then return {} end
  local free = cap - redis.call('ZCARD', K[2])
  if free <= 0 then return {} end
  local out = {}
  local candidates = redis.call('ZRANGE', K[1], 0, free + 3 * cap)
  for _, m in ipairs(candidates) do
    if #out >= free then break end
    if not redis.call('ZSCORE', K[2], m) and not redis.call('ZSCORE', K[5], m) then out[#out + 1] = m end
  end
  for _, m in ipairs(out) do
    redis.call('ZREM', K[1], m)
    redis.call('ZADD', K[2], now, m)
  end
  if #out == 0 then return {} end
  local share = '0'
  -- busy: something was admitted before this call, or was within SHARE_GRACE_MS (the key lives that long
  -- after the last admission); INCRBY answers the new count: the share is what it was before
  if freed + (cap - free) + retrying > 0 or redis.call('EXISTS', K[6]) == 1 then share = tostring(redis.call('INCRBY', K[6], #out) - #out)
  else redis.call('SET', K[6], #out) end
  redis.call('PEXPIRE', K[6], ${SHARE_GRACE_MS})
  table.insert(out, 1, tostring(cap - free))
  table.insert(out, 2, share)
  return out
end`;

/* KEYS[1..6] as admit's K; ARGV[1] cap, ARGV[2] now (ms), ARGV[3] op, ARGV[4] member. */
const ADMIT = `${ADMIT_LUA}
return admit(KEYS, ARGV[1], ARGV[2], ARGV[3], ARGV[4])`;

/*
  Lua: backlog_add(key, zargs) adds to the backlog `key` the score/member pairs of `zargs` (a flat table),
  NX: a member already there keeps its place.
*/
const BACKLOG_ADD_LUA = `
local function backlog_add(key, zargs)
  for s = 1, #zargs, 2000 do redis.call('ZADD', key, 'NX', unpack(zargs, s, math.min(#zargs, s + 1999))) end
end`;

/* KEYS[1] the backlog; ARGV score/member pairs. `AdmissionStore.add` alone. */
const BACKLOG_ADD = `${BACKLOG_ADD_LUA}
backlog_add(KEYS[1], ARGV)`;

/*
  KEYS[1..6] as admit's K; ARGV[1] cap, ARGV[2] now (ms), then score/member pairs. Adds the members to the
  backlog and admits what the directory's free slots allow, in one command (admit's answer).
*/
const ENQUEUE = `${BACKLOG_ADD_LUA}
${ADMIT_LUA}
local zargs = {}
for i = 3, #ARGV do zargs[#zargs + 1] = ARGV[i] end
backlog_add(KEYS[1], zargs)
return admit(KEYS, ARGV[1], ARGV[2], '', '')`;

/*
  A batch of outbox entries of one directory, taken into its backlog in one step (the outbox dispatcher's
  handling of a read, src/sync/admission/dispatcher.ts):
  KEYS[1..6] as admit's K, KEYS[7] the outbox stream, KEYS[8] the pending status set, KEYS[9..] the sync-state
  hashes of the resources the entries name; ARGV[1] cap, ARGV[2] now (ms), ARGV[3] now (ISO), ARGV[4] the
  consumer group, ARGV[5] n, ARGV[6..5+n] the entries' ids, then per resource (KEYS' order): its backlog
  score, its backlog member, its "<k>:<id>".
  Marks the resources the bridge has no sync state for yet `pending` (one that has a status keeps it until
  its reconcile settles, so the reconcilers' "payload equals the last applied" checks hold), adds them to
  the backlog (one already there keeps its place), acks and deletes the entries, and admits what the
  directory's free slots allow (admit's answer). Acking here is safe: what an entry asked for is in the
  backlog (or admitted) in the same step, and a member admitted whose job is never added (the process
  died before adding it) is given back by the admission recovery (SyncQueues.recover).
*/
const DISPATCH = `${MARK_PENDING_LUA}
${ACK_DELETE_LUA}
${BACKLOG_ADD_LUA}
${ADMIT_LUA}
local n = tonumber(ARGV[5])
local ids, recs, names, zargs = {}, {}, {}, {}
for i = 1, n do ids[i] = ARGV[5 + i] end
local j = 6 + n
for i = 9, #KEYS do
  recs[#recs + 1] = KEYS[i]
  zargs[#zargs + 1] = ARGV[j]
  zargs[#zargs + 1] = ARGV[j + 1]
  names[#names + 1] = ARGV[j + 2]
  j = j + 3
end
mark_pending(KEYS[8], recs, names, ARGV[3])
backlog_add(KEYS[1], zargs)
ack_delete(KEYS[7], ARGV[4], ids)
if #recs == 0 then return {} end
return admit(KEYS, ARGV[1], ARGV[2], '', '')`;

/*
  KEYS[1] meta, KEYS[2] hold, KEYS[3] retrying, KEYS[4] inflight; ARGV[1] member ("" for a resync), ARGV[2] now
  Before a job runs: {paused (0/1), ms still held}; a member back from a retry delay takes its slot again.
*/
const GATE = `
local paused = redis.call('HEXISTS', KEYS[1], 'paused')
local held = redis.call('PTTL', KEYS[2])
if paused == 0 and ARGV[1] ~= '' and redis.call('ZREM', KEYS[3], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1])
end
return {paused, held}`;

/*
  KEYS[1] backlog, KEYS[2] inflight, KEYS[3] retrying; ARGV[1] member, ARGV[2] the admission stamp recovery
  saw, ARGV[3] now. Gives the slot back only when the member still holds it with that stamp: recovery reads
  the stamps, then asks BullMQ whether each job exists; a job that finished in between was released meanwhile
  (or released and admitted again, with a new stamp), and must not be put back into the backlog as if it had
  been lost. Returns 1 when given back, else 0.
*/
const GIVE_BACK = `
local m, seen = ARGV[1], tonumber(ARGV[2])
local a, r = redis.call('ZSCORE', KEYS[2], m), redis.call('ZSCORE', KEYS[3], m)
if not ((a and tonumber(a) == seen) or (r and tonumber(r) == seen)) then return 0 end
redis.call('ZADD', KEYS[1], 'NX', ARGV[3], m)
redis.call('ZREM', KEYS[2], m)
redis.call('ZREM', KEYS[3], m)
return 1`;

/*
  KEYS[1] backlog, KEYS[2] inflight, KEYS[3] retrying; ARGV[1] before (ms), "" for none.
  What the worker's periodic chores need of one directory, in one command (it was three: at 1,000
  directories each worker sent 600 of them a second with nothing to do, bench/scale's idle figure):
  {backlog size, in flight + retrying, then the members admitted (in flight or retrying) at or before
  ARGV[1], each followed by its admission stamp}.
*/
const PROBE = `
local out = {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])}
if ARGV[1] ~= '' then
  for k = 2, 3 do
    for _, v in ipairs(redis.call('ZRANGEBYSCORE', KEYS[k], '-inf', ARGV[1], 'WITHSCORES')) do out[#out + 1] = v end
  end
end
return out`;

/*
  KEYS[1] inflight, KEYS[2] retrying; ARGV[1] now (ms), then members. Re-stamps those still admitted (XX):
  one command, where a MULTI of two ZADDs was four and built an ioredis Pipeline each time (recovery
  re-stamps every directory whose admissions wait in their shard for longer than the lease, which under
  bench/scale's push was most of the 1,000, every round).
*/
const TOUCH = `
local args = {}
for i = 2, #ARGV do args[#args + 1] = ARGV[1]; args[#args + 1] = ARGV[i] end
for s = 1, #args, 2000 do
  local e = math.min(#args, s + 1999)
  redis.call('ZADD', KEYS[1], 'XX', unpack(args, s, e))
  redis.call('ZADD', KEYS[2], 'XX', unpack(args, s, e))
end
return 1`;

/** One directory's admission at a glance (PROBE). */
export interface AdmissionProbe {
  /** Resources waiting in the backlog. */
  backlog: number;
  /** Resources admitted (in the shard, not finished). */
  admitted: number;
  /** Those admitted at or before the moment asked about, with their admission stamps. */
  old: AdmittedMember[];
}

/** A member admitted before some moment, and the stamp (ms) of that admission. */
export interface AdmittedMember {
  member: string;
  stamp: number;
}

/** A member just admitted: its turn (1 for the directory's only job in flight, 2 for its second…) and its directory's share. */
export interface Admitted {
  member: string;
  turn: number;
  share: number;
}

/** admit's answer → the members admitted, with their turns. */
function withTurns(res: string[]): Admitted[] {
  if (!res.length) return [];
  const before = Number(res[0]);
  const share = Number(res[1]);
  return res.slice(2).map((member, i) => ({ member, turn: before + i + 1, share }));
}

/** Backlog, in-flight set and hold of each directory. */
export class AdmissionStore {
  private readonly state: SyncStateStore;
  private readonly admitScript: (...args: string[]) => Promise<string[]>;
  private readonly gateScript: (...args: string[]) => Promise<[number, number]>;
  private readonly giveBackScript: (...args: string[]) => Promise<number>;
  private readonly probeScript: (...args: string[]) => Promise<Array<number | string>>;
  private readonly touchScript: (...args: string[]) => Promise<number>;
  private readonly dispatchScript: (...args: string[]) => Promise<string[]>;
  private readonly enqueueScript: (...args: string[]) => Promise<string[]>;
  private readonly backlogAddScript: (...args: string[]) => Promise<null>;

  /** The highest backlog score `add` gave (see there). */
  private lastScore = 0;

  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {
    this.state = new SyncStateStore(redis, keyPrefix);
    this.admitScript = inlineCommand(redis, "admissionAdmit", 6, ADMIT);
    this.gateScript = inlineCommand(redis, "admissionGate", 4, GATE);
    this.giveBackScript = inlineCommand(redis, "admissionGiveBack", 3, GIVE_BACK);
    this.probeScript = inlineCommand(redis, "admissionProbe", 3, PROBE);
    this.touchScript = inlineCommand(redis, "admissionTouch", 2, TOUCH);
    this.dispatchScript = inlineCommand(redis, "admissionDispatch", "dynamic", DISPATCH);
    this.enqueueScript = inlineCommand(redis, "admissionEnqueue", 6, ENQUEUE);
    this.backlogAddScript = inlineCommand(redis, "admissionBacklogAdd", 1, BACKLOG_ADD);
  }

  keys(dir: string): DirectoryQueueKeys {
    return new DirectoryQueueKeys(this.keyPrefix, dir);
  }

  /**
   * Adds members to the backlog in the order given (a member already there keeps its place). Members of
   * equal score would come out in byte order ("group:…" before "user:…"), so each gets a thousandth of a
   * millisecond more than the one before it: a user written before its group is reconciled first, and the
   * group's reconcile finds it on the platform instead of leaving the membership to a second reconcile.
   * (A score near 1.7e12 still tells apart steps of 1e-3: a double's step there is 2.4e-4.) The steps go
   * on from the last score this store gave, so batches added within one millisecond keep their order too.
   */
  async add(dir: string, members: string[], now = Date.now()): Promise<void> {
    await this.backlogAddScript(this.keys(dir).backlog, ...this.scoredPairs(members, now));
  }

  /** Backlog scores for `n` members added now, one after the other (see `add`). */
  private scores(n: number, now: number): number[] {
    const first = Math.max(now, this.lastScore + STEP);
    this.lastScore = first + (n - 1) * STEP;
    return Array.from({ length: n }, (_, i) => first + i * STEP);
  }

  /** `members` with their backlog scores (see `add`), as the flat score/member pairs of a ZADD. */
  private scoredPairs(members: string[], now: number): string[] {
    const scores = this.scores(members.length, now);
    return members.flatMap((m, i) => [String(scores[i]), m]);
  }

  /**
   * `add`, then `admitWithTurns`, in one command (ENQUEUE): a reconcile asked for outside the outbox (a
   * follow-up, a revival, a retry, a resync) waits for one round trip before its job is added, not two.
   */
  async addAndAdmit(dir: string, cap: number, members: string[], now = Date.now()): Promise<Admitted[]> {
    const k = this.keys(dir);
    return withTurns(await this.enqueueScript(k.backlog, k.inflight, this.state.metaKey(dir), k.hold, k.retrying, k.share, String(cap), String(now), ...this.scoredPairs(members, now)));
  }

  /**
   * Takes a batch of outbox entries of a directory into its backlog in one command (DISPATCH): marks the
   * resources never synced `pending`, adds `items` to the backlog as `add` does, acks and deletes the
   * entries `ids` of `outbox` for `group`, and admits what the free slots allow (as `admitWithTurns`).
   * It was five round trips one after the other (mark, add, admit, the jobs' add, ack); the outbox
   * dispatcher's handling of a read now waits for two (this and the jobs' add).
   */
  async dispatch(
    dir: string, cap: number, outbox: { stream: string; group: string; ids: string[] },
    items: Array<{ kind: SyncKind; id: string; member: string }>, now = Date.now(),
  ): Promise<Admitted[]> {
    const k = this.keys(dir);
    const keys = [k.backlog, k.inflight, this.state.metaKey(dir), k.hold, k.retrying, k.share, outbox.stream, this.state.statusKey(dir, "pending"),
      ...items.map((it) => this.state.key(dir, it.kind, it.id))];
    const scores = this.scores(items.length, now);
    const args = [String(cap), String(now), new Date(now).toISOString(), outbox.group, String(outbox.ids.length), ...outbox.ids];
    items.forEach((it, i) => args.push(String(scores[i]), it.member, `${kindCode(it.kind)}:${it.id}`));
    return withTurns(await this.dispatchScript(String(keys.length), ...keys, ...args));
  }

  /**
   * Admits what the directory's free slots allow; returns the members admitted (to be added to the shard).
   * `change`: first frees (or lends) the slot of `member`, in the same command.
   */
  async admit(dir: string, cap: number, now = Date.now(), change?: { op: SlotChange; member: string }): Promise<string[]> {
    return (await this.admitWithTurns(dir, cap, now, change)).map((a) => a.member);
  }

  /**
   * `admit`, with each member's turn: 1 for the directory's only job in flight, 2 for its second… The
   * shard runs lower turns first (src/sync/admission/queues.ts), so every directory's first job goes before any
   * directory's second. `share`: how many the directory had admitted before these since it last had
   * nothing admitted (the queues make a busy directory's turns later by it, so one that was idle goes first).
   */
  async admitWithTurns(dir: string, cap: number, now = Date.now(), change?: { op: SlotChange; member: string }): Promise<Admitted[]> {
    const k = this.keys(dir);
    return withTurns(await this.admitScript(
      k.backlog, k.inflight, this.state.metaKey(dir), k.hold, k.retrying, k.share,
      String(cap), String(now), change?.op ?? "", change?.member ?? "",
    ));
  }

  /** Frees the slot of a finished member, admitting nothing (ADMIT with cap 0: its "release" step only). */
  async release(dir: string, member: string): Promise<void> {
    await this.admit(dir, 0, Date.now(), { op: "release", member });
  }

  /**
   * Frees the slot of a member whose job waits out a retry delay (it takes one again when it runs), admitting
   * nothing (ADMIT with cap 0: its "retrying" step only); false when the member holds no slot any more — its
   * retry already ran and finished — so it was not lent.
   */
  async retrying(dir: string, member: string, now = Date.now()): Promise<boolean> {
    await this.admit(dir, 0, now, { op: "retrying", member });
    return (await this.redis.zscore(this.keys(dir).retrying, member)) !== null;
  }

  /** Members of a directory admitted into its shard and not finished (running, or about to run). */
  inflight(dir: string): Promise<number> {
    return this.redis.zcard(this.keys(dir).inflight);
  }

  /** Puts an admitted member back at the front of the backlog and frees its slot (a paused directory's job). */
  async park(dir: string, member: string): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().zadd(k.backlog, "LT", 0, member).zrem(k.inflight, member).zrem(k.retrying, member).exec();
  }

  /** Puts a member whose job could not be added back into the backlog and frees its slot. */
  async requeue(dir: string, member: string, now = Date.now()): Promise<void> {
    const k = this.keys(dir);
    await this.redis.multi().zadd(k.backlog, "NX", now, member).zrem(k.inflight, member).zrem(k.retrying, member).exec();
  }

  /**
   * Recovery: puts a member whose job is gone back into the backlog and frees its slot, only if it still
   * holds the slot of the admission `seen` (see GIVE_BACK); true when it did.
   */
  async giveBack(dir: string, seen: AdmittedMember, now = Date.now()): Promise<boolean> {
    const k = this.keys(dir);
    return Number(await this.giveBackScript(k.backlog, k.inflight, k.retrying, seen.member, String(seen.stamp), String(now))) === 1;
  }

  /**
   * Each directory at a glance: backlog, admitted, and (with `before`, ms) the members admitted at or before
   * then. One command per directory, all sent at once (one round trip on one connection) but not as one
   * pipeline: on Redis Cluster the directories' keys are in different slots, which one ioredis Cluster
   * pipeline may not span.
   */
  async probe(dirs: string[], before?: number): Promise<Map<string, AdmissionProbe>> {
    const res = await Promise.all(dirs.map((d) => {
      const k = this.keys(d);
      return this.probeScript(k.backlog, k.inflight, k.retrying, before === undefined ? "" : String(before));
    }));
    const out = new Map<string, AdmissionProbe>();
    dirs.forEach((d, i) => {
      const [backlog, admitted, ...rows] = res[i];
      const old: AdmittedMember[] = [];
      for (let j = 0; j + 1 < rows.length; j += 2) old.push({ member: String(rows[j]), stamp: Number(rows[j + 1]) });
      out.set(d, { backlog: Number(backlog), admitted: Number(admitted), old });
    });
    return out;
  }

  /** Of each directory, the members admitted (in flight or retrying) at or before `before` (ms). */
  async admittedSince(dirs: string[], before: number): Promise<Map<string, AdmittedMember[]>> {
    const out = new Map<string, AdmittedMember[]>();
    for (const [d, p] of await this.probe(dirs, before)) if (p.old.length) out.set(d, p.old);
    return out;
  }

  /** Re-stamps admitted members whose job still exists. */
  async touch(dir: string, members: string[], now = Date.now()): Promise<void> {
    if (!members.length) return;
    const k = this.keys(dir);
    await this.touchScript(k.inflight, k.retrying, String(now), ...members);
  }

  /** Holds the directory's admission for `ms` (the platform's Retry-After). */
  async hold(dir: string, ms: number): Promise<void> {
    await this.redis.set(this.keys(dir).hold, "1", "PX", Math.max(1, Math.round(ms)));
  }

  /** Milliseconds the directory is still held (0: not held). */
  async heldFor(dir: string): Promise<number> {
    return Math.max(0, await this.redis.pttl(this.keys(dir).hold));
  }

  /**
   * What a worker checks before running a job of the directory: paused, and how long it is still held; a
   * reconcile back from a retry delay takes its slot again (`member`; "" for a resync).
   */
  async gate(dir: string, member = "", now = Date.now()): Promise<{ paused: boolean; heldMs: number }> {
    const k = this.keys(dir);
    const [paused, held] = await this.gateScript(this.state.metaKey(dir), k.hold, k.retrying, k.inflight, member, String(now));
    return { paused: Number(paused) === 1, heldMs: Math.max(0, Number(held)) };
  }

  /** Resources waiting in the backlog and admitted (in the shard, not finished). */
  async depth(dir: string): Promise<{ backlog: number; admitted: number }> {
    const { backlog, admitted } = (await this.probe([dir])).get(dir)!;
    return { backlog, admitted };
  }

  /** Of these directories, the ones with a non-empty backlog (one round trip). */
  async backlogged(dirs: string[]): Promise<string[]> {
    return [...await this.probe(dirs)].filter(([, p]) => p.backlog > 0).map(([d]) => d);
  }
}
