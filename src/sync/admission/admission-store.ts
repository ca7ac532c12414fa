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
import { defineStoreCommands } from "../../store/scripts";
import { SyncStateStore, type SyncKind } from "../state/sync-state";
import { kindCode } from "../state/sync-state-keys";
import { STORED_IN, STORED_STATES, type StoredState } from "./life";

/** The backlog score between members added one after the other (ms; see AdmissionStore.add). */
const STEP = 1e-3;

/**
 * How long a directory's share outlives its last admission. A directory that pushes a change every second
 * or so (an IdP working through its users) is busy even when each change was done before the next came:
 * its share must not fall back to 0 between its changes, or its next jobs go in with the priority of a
 * directory that had been idle, ahead of the first jobs of directories that really had been. One idle for
 * longer starts again at 0.
 */
export const SHARE_GRACE_MS = 5000;

/** What becomes of a member in the same command that admits the next ones (includes/admit.lua). */
export type SlotChange = "release" | "retrying" | "waiting";

/** The admission scripts (src/store/commands/admission*.lua), as ioredis exposes them. */
interface AdmissionCommands {
  admissionAdmit(backlog: string, inflight: string, meta: string, retrying: string, share: string, ...args: string[]): Promise<string[]>;
  admissionEnqueue(backlog: string, inflight: string, meta: string, retrying: string, share: string, ...args: string[]): Promise<string[]>;
  admissionBacklogAdd(backlog: string, ...pairs: string[]): Promise<number>;
  admissionDispatch(numKeys: number, ...keysThenArgs: string[]): Promise<string[]>;
  admissionGate(meta: string, retrying: string, inflight: string, member: string, now: string): Promise<[number, number]>;
  admissionGiveBack(backlog: string, inflight: string, retrying: string, member: string, stamp: string, now: string): Promise<number>;
  admissionProbe(backlog: string, inflight: string, retrying: string, before: string): Promise<Array<number | string>>;
  admissionTouch(inflight: string, retrying: string, now: string, ...members: string[]): Promise<number>;
  admissionPark(backlog: string, inflight: string, retrying: string, member: string, where: "front" | "now", now: string): Promise<number>;
}

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

/** Backlog, in-flight and retrying sets, hold and share of each directory (src/sync/admission/admission.md). */
export class AdmissionStore {
  private readonly state: SyncStateStore;
  private readonly run: RedisConnection & AdmissionCommands;

  /** The highest backlog score `add` gave (see there). */
  private lastScore = 0;

  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {
    this.state = new SyncStateStore(redis, keyPrefix);
    this.run = defineStoreCommands(redis) as unknown as RedisConnection & AdmissionCommands;
  }

  keys(dir: string): DirectoryQueueKeys {
    return new DirectoryQueueKeys(this.keyPrefix, dir);
  }

  /** The five keys every admitting script takes first (includes/admit.lua). */
  private admitKeys(dir: string): [string, string, string, string, string] {
    const k = this.keys(dir);
    return [k.backlog, k.inflight, this.state.metaKey(dir), k.retrying, k.share];
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
    await this.run.admissionBacklogAdd(this.keys(dir).backlog, ...this.scoredPairs(members, now));
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
   * `add`, then `admitWithTurns`, in one command: a reconcile asked for outside the outbox (a follow-up, a
   * revival, a retry, a resync) waits for one round trip before its job is added, not two.
   */
  async addAndAdmit(dir: string, cap: number, members: string[], now = Date.now()): Promise<Admitted[]> {
    return withTurns(await this.run.admissionEnqueue(...this.admitKeys(dir), String(cap), String(now), String(SHARE_GRACE_MS), ...this.scoredPairs(members, now)));
  }

  /**
   * Takes a batch of outbox entries of a directory into its backlog in one command (admissionDispatch):
   * marks the resources never synced `pending`, adds `items` to the backlog as `add` does, acks and deletes
   * the entries `ids` of `outbox` for `group`, and admits what the free slots allow (as `admitWithTurns`).
   */
  async dispatch(
    dir: string, cap: number, outbox: { stream: string; group: string; ids: string[] },
    items: Array<{ kind: SyncKind; id: string; member: string }>, now = Date.now(),
  ): Promise<Admitted[]> {
    const keys = [...this.admitKeys(dir), outbox.stream, this.state.statusKey(dir, "pending"), ...items.map((it) => this.state.key(dir, it.kind, it.id))];
    const scores = this.scores(items.length, now);
    const args = [String(cap), String(now), String(SHARE_GRACE_MS), new Date(now).toISOString(), outbox.group, String(outbox.ids.length), ...outbox.ids];
    items.forEach((it, i) => args.push(String(scores[i]), it.member, `${kindCode(it.kind)}:${it.id}`));
    return withTurns(await this.run.admissionDispatch(keys.length, ...keys, ...args));
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
   * shard runs lower turns first (SyncQueues.admit), so every directory's first job goes before any
   * directory's second. `share`: how many the directory had admitted before these since it last had
   * nothing admitted (the queues make a busy directory's turns later by it, so one that was idle goes first).
   */
  async admitWithTurns(dir: string, cap: number, now = Date.now(), change?: { op: SlotChange; member: string }): Promise<Admitted[]> {
    return withTurns(await this.run.admissionAdmit(
      ...this.admitKeys(dir), String(cap), String(now), String(SHARE_GRACE_MS), change?.op ?? "", change?.member ?? "",
    ));
  }

  /** Frees the slot of a finished member, admitting nothing (cap 0: the "release" step only). */
  async release(dir: string, member: string): Promise<void> {
    await this.admit(dir, 0, Date.now(), { op: "release", member });
  }

  /**
   * Lends the slot of a member whose job waits out a retry delay (it takes one again when it runs), admitting
   * nothing; false when the member holds no slot any more (its retry already ran and finished).
   */
  async retrying(dir: string, member: string, now = Date.now()): Promise<boolean> {
    await this.admit(dir, 0, now, { op: "retrying", member });
    return (await this.stateOf(dir, member)) === "retrying";
  }

  /** Where the admission keeps `member` (admission.md): its set, or "none" (not asked for, or done). */
  async stateOf(dir: string, member: string): Promise<StoredState | "none"> {
    const k = this.keys(dir);
    const scores = await Promise.all(STORED_STATES.map((s) => this.redis.zscore(k[STORED_IN[s]], member)));
    const i = scores.findIndex((x) => x !== null);
    return i < 0 ? "none" : STORED_STATES[i];
  }

  /** Members of a directory admitted into its shard and not finished (running, or about to run). */
  inflight(dir: string): Promise<number> {
    return this.redis.zcard(this.keys(dir).inflight);
  }

  /** Puts an admitted member back at the front of the backlog and frees its slot (a paused directory's job). */
  async park(dir: string, member: string, now = Date.now()): Promise<void> {
    const k = this.keys(dir);
    await this.run.admissionPark(k.backlog, k.inflight, k.retrying, member, "front", String(now));
  }

  /** Puts a member whose job could not be added back into the backlog and frees its slot. */
  async requeue(dir: string, member: string, now = Date.now()): Promise<void> {
    const k = this.keys(dir);
    await this.run.admissionPark(k.backlog, k.inflight, k.retrying, member, "now", String(now));
  }

  /**
   * Recovery: puts a member whose job is gone back into the backlog and frees its slot, only if it still
   * holds the slot of the admission `seen` (admissionGiveBack); true when it did.
   */
  async giveBack(dir: string, seen: AdmittedMember, now = Date.now()): Promise<boolean> {
    const k = this.keys(dir);
    return Number(await this.run.admissionGiveBack(k.backlog, k.inflight, k.retrying, seen.member, String(seen.stamp), String(now))) === 1;
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
      return this.run.admissionProbe(k.backlog, k.inflight, k.retrying, before === undefined ? "" : String(before));
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
    await this.run.admissionTouch(k.inflight, k.retrying, String(now), ...members);
  }

  /**
   * Holds the directory's admission for `ms` (the platform's Retry-After): until then the meta's `hold`
   * field (ms) stops admission, and the gate delays the directory's jobs that reach a worker.
   */
  async hold(dir: string, ms: number, now = Date.now()): Promise<void> {
    await this.redis.hset(this.state.metaKey(dir), "hold", String(now + Math.max(1, Math.round(ms))));
  }

  /**
   * What a worker checks before running a job of the directory: paused, and how long it is still held; a
   * reconcile back from a retry delay takes its slot again (`member`; "" for a resync or a first run).
   */
  async gate(dir: string, member = "", now = Date.now()): Promise<{ paused: boolean; heldMs: number }> {
    const k = this.keys(dir);
    const [paused, held] = await this.run.admissionGate(this.state.metaKey(dir), k.retrying, k.inflight, member, String(now));
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
