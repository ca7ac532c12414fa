/**
 * Outbox → queue. Reads every directory's outbox stream (`<P>outbox`, written by the store in the same
 * atomic step as the change) through the consumer group `dispatch`; in one command per batch, marks a
 * resource the bridge has never synced `pending`, puts (kind, id) into the directory's backlog and acks and
 * deletes the entry (src/sync/admission/admission-store.ts `dispatch`); then adds the jobs of what the directory's
 * free slots admitted. Several worker processes share the group, so each entry goes to one of them.
 *
 * The sweeper: an entry that a dispatcher read but never acked (it crashed between the read and the dispatch
 * command) stays pending; every `sweepIntervalMs` any dispatcher claims entries idle for longer than `claimIdleMs`
 * (XAUTOCLAIM) and enqueues them. Enqueueing twice is harmless (reconciles are deduplicated and read the
 * latest state).
 *
 * Directories come and go at runtime (`addDirectory` / `removeDirectory`): the next round (≤ IDLE_WAIT_SECONDS
 * later) covers the new set. A removed directory's outbox stays as it is until it is added again.
 *
 * Each round reads only the outboxes that have news, one short XREADGROUP each: those the store named in
 * the outbox signal (src/store/outbox-signal.ts) since the last round, and those whose last read returned
 * a full batch. Every `fullPollMs` a round reads every outbox, which catches an entry whose signal was
 * lost. No command names more than one outbox, on single Redis as on a cluster, so no read holds Redis
 * for every tenant at once. When a round finds nothing, the dispatcher blocks on the signal alone
 * (BZPOPMIN, on a connection of its own, up to a second) and wakes as soon as a store names a directory.
 */
import type { RedisConnection } from "../../store/connection";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { DirectoryKeys, outboxSignalOf, type OutboxSignal } from "../../store";
import { type SyncKind } from "../state/sync-state";
import type { SyncQueues } from "./queues";
import { inLanes } from "../lanes";

export const DISPATCH_GROUP = "dispatch";
/** How long an idle dispatcher blocks on the signal before it looks again (the full poll's schedule). */
const IDLE_WAIT_SECONDS = 1;
/** Directories taken from the outbox signal per round. */
const SIGNAL_TAKE = 1000;
/**
 * Directories whose entries of one read are handled at once. Each handling is a few round trips that wait
 * on Redis, not on this process, so many run at once: a thousand directories sending their first change
 * together are handled as fast as they arrive, and the last of them does not wait for the others.
 */
const HANDLE_LANES = 64;
/** Consumer groups created at once at start (one round trip each). */
const INIT_LANES = 64;
/**
 * Outboxes read at once in a round. A full poll of 1,000 outboxes sent as one pipeline would hold Redis
 * for all of them in one go (it runs a client's pipelined commands back to back); in lanes of 64 other
 * clients' commands come in between.
 */
const READ_LANES = 64;

export interface DispatcherOptions {
  keyPrefix: string;
  directoryIds: string[];
  consumer: string;
  sweepIntervalMs: number;
  /** Pending entries idle this long are taken over by the sweeper. */
  claimIdleMs: number;
  batch?: number;
  /** Every outbox is read at least this often, signalled or not (default 5,000 ms). */
  fullPollMs?: number;
}

type StreamEntry = [id: string, fields: string[]];

function fieldsOf(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) out[raw[i]] = raw[i + 1];
  return out;
}

/** Moves outbox entries into the directories' reconcile queues. */
export class OutboxDispatcher {
  private running = false;
  private loops: Promise<void>[] = [];
  /** Ends the sweeper's wait between sweeps early (set while it waits). */
  private wakeSweeper?: () => void;
  private readonly streams: Map<string, string>;
  /** Where the next read's handling starts in the list of streams (moves on every read: fair turns). */
  private turn = 0;
  private readonly signal: OutboxSignal;
  /** Outboxes whose last read returned a full batch (read again without a signal). */
  private readonly more = new Set<string>();
  /** When every outbox was last read. */
  private lastFullPoll = 0;
  /** Directories an idle wait took from the signal (read next round). */
  private readonly woken = new Set<string>();
  /** The idle wait's connection (it blocks), made on start from the shared one. */
  private blocking?: RedisConnection;

  constructor(
    private readonly redis: RedisConnection,
    private readonly queues: SyncQueues,
    private readonly options: DispatcherOptions,
    private readonly logger: Logger,
  ) {
    this.streams = new Map(options.directoryIds.map((d) => [new DirectoryKeys(options.keyPrefix, d).outbox, d]));
    this.signal = outboxSignalOf(redis, options.keyPrefix);
  }

  /** Creates the consumer groups (from the start of each stream, so nothing written before is skipped). */
  async init(): Promise<void> {
    await inLanes([...this.streams.keys()], INIT_LANES, (key) => this.createGroup(key));
  }

  private async createGroup(key: string): Promise<void> {
    try {
      await this.redis.xgroup("CREATE", key, DISPATCH_GROUP, "0", "MKSTREAM");
    } catch (err) {
      if (!/BUSYGROUP/.test((err as Error).message)) throw err;
    }
  }

  /** Reads a directory's outbox from the next read on. */
  async addDirectory(id: string): Promise<void> {
    const key = new DirectoryKeys(this.options.keyPrefix, id).outbox;
    await this.createGroup(key);
    this.streams.set(key, id);
    this.more.add(key); // entries written before it was added are read next round, not at the next full poll
  }

  /** Stops reading a directory's outbox (entries stay for when it is added again). */
  removeDirectory(id: string): void {
    this.streams.delete(new DirectoryKeys(this.options.keyPrefix, id).outbox);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const blocking = (this.redis as { duplicate(): RedisConnection }).duplicate();
    blocking.on("error", () => undefined);
    this.blocking = blocking;
    this.loops = [this.readLoop(), this.sweepLoop()];
  }

  /** Stops both loops: the sweeper at once, the reader after its current round (an idle wait is cut short). */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeSweeper?.();
    this.blocking?.disconnect();
    await Promise.allSettled(this.loops);
  }

  /**
   * Takes a batch of entries of one stream into its directory's backlog, marks never-synced resources
   * pending and acks the entries (one command), then adds the jobs of what that admitted.
   */
  private async handle(stream: string, entries: StreamEntry[]): Promise<void> {
    const dir = this.streams.get(stream);
    if (!dir) return; // removed meanwhile: the entries stay pending for when it comes back
    const ids: string[] = [];
    // each resource once: several changes of one resource in a batch are one reconcile, which reads the
    // latest desired state anyway
    const work = new Map<string, { kind: SyncKind; id: string }>();
    for (const [id, raw] of entries) {
      ids.push(id);
      if (!raw) continue; // deleted meanwhile
      const f = fieldsOf(raw);
      if (f.k === "user" || f.k === "group") work.set(`${f.k}:${f.id}`, { kind: f.k, id: f.id });
    }
    await this.queues.dispatch(dir, [...work.values()], { stream, group: DISPATCH_GROUP, ids });
  }

  /**
   * Handles what one read returned, HANDLE_LANES directories at a time, starting one directory further on
   * each read: with a thousand directories in one read, handling them one after the other in the same
   * order every time made the last ones of the list wait for the whole list on every read (their first
   * sync came last), and one directory's batch never waits for more than its turn.
   */
  private async handleAll(batches: Array<[string, StreamEntry[]]>): Promise<void> {
    if (!batches.length) return;
    const start = this.turn++ % batches.length;
    const order = [...batches.slice(start), ...batches.slice(0, start)];
    // a failed batch stays pending in its stream (the sweeper takes it over); the read loop retries
    await inLanes(order, HANDLE_LANES, ([stream, entries]) => this.handle(stream, entries));
  }

  private async readLoop(): Promise<void> {
    const batch = this.options.batch ?? 500;
    while (this.running) {
      const keys = [...this.streams.keys()];
      if (keys.length === 0) {
        await sleep(IDLE_WAIT_SECONDS * 1000);
        continue;
      }
      try {
        const { keys: due, signalled } = await this.dueStreams(keys);
        const batches: Array<[string, StreamEntry[]]> = [];
        await inLanes(due, READ_LANES, async (key) => {
          const res = (await this.redis.xreadgroup(
            "GROUP", DISPATCH_GROUP, this.options.consumer, "COUNT", batch, "STREAMS", key, ">",
          )) as Array<[string, StreamEntry[]]> | null;
          if (res) batches.push(...res);
        });
        const read = batches.reduce((n, [, entries]) => n + entries.length, 0);
        for (const [stream, entries] of batches) if (entries.length >= batch) this.more.add(stream);
        await this.handleAll(batches);
        // idle: block on the signal until a store names a directory, or until it is time to look again
        // (the full poll); the next round reads the directory it gave
        if (read === 0 && signalled < SIGNAL_TAKE && this.running) {
          const dir = await this.signal.wait(this.blocking!, IDLE_WAIT_SECONDS);
          if (dir) this.woken.add(dir);
        }
      } catch (err) {
        if (!this.running) return;
        if (/NOGROUP/.test((err as Error).message)) await this.init().catch(() => undefined);
        this.logger.warn({ err: { message: (err as Error).message } }, "outbox read failed; retrying");
        await sleep(500);
      }
    }
  }

  /**
   * The outboxes this round reads — the signalled ones and those with more to read, or all
   * of them when the last full poll is `fullPollMs` old. `signalled`: how many directories the signal gave.
   */
  private async dueStreams(all: string[]): Promise<{ keys: string[]; signalled: number }> {
    const taken = [...this.woken, ...await this.signal.take(SIGNAL_TAKE)];
    this.woken.clear();
    if (Date.now() - this.lastFullPoll >= (this.options.fullPollMs ?? 5000)) {
      this.lastFullPoll = Date.now();
      this.more.clear();
      return { keys: all, signalled: taken.length };
    }
    const due = new Set([...this.more].filter((key) => this.streams.has(key)));
    this.more.clear();
    for (const dir of taken) {
      const key = new DirectoryKeys(this.options.keyPrefix, dir).outbox;
      // a directory this dispatcher does not read (yet): its entries wait for a full poll
      if (this.streams.has(key)) due.add(key);
    }
    return { keys: [...due], signalled: taken.length };
  }

  /** The sweeper: takes over entries another (crashed) consumer read and never acked. */
  async sweep(): Promise<number> {
    let moved = 0;
    for (const key of [...this.streams.keys()]) {
      let cursor = "0-0";
      do {
        const res = (await this.redis.xautoclaim(key, DISPATCH_GROUP, this.options.consumer, this.options.claimIdleMs, cursor, "COUNT", 500)) as [string, StreamEntry[], ...unknown[]];
        cursor = res[0];
        if (res[1].length) {
          await this.handle(key, res[1]);
          moved += res[1].length;
        }
      } while (cursor !== "0-0" && this.running);
    }
    if (moved) this.logger.info({ moved }, "sweeper re-enqueued outbox entries left pending by another dispatcher");
    return moved;
  }

  private async sweepLoop(): Promise<void> {
    while (this.running) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.sweepIntervalMs);
        this.wakeSweeper = () => { clearTimeout(timer); resolve(); };
      });
      this.wakeSweeper = undefined;
      if (!this.running) return;
      await this.sweep().catch((err: Error) => this.logger.warn({ err: { message: err.message } }, "sweep failed"));
    }
  }
}
