/**
 * The activity trail of each user and group: what the IdP did, what the reconciler applied, each platform
 * call (method, path, status, message), retries and pauses. One capped stream per resource, so memory is
 * bounded by resources × `activity.maxEvents`, and a trail untouched for `activity.retentionDays` expires
 * (a deleted resource's trail does not stay forever):
 *
 *   P a:<k>:<id>   STREAM  fields: e (the event as JSON: {type, at, ...}); XADD … MAXLEN = maxEvents
 *
 * where P = `<keyPrefix>:{<directoryId>}:` and <k> is "u" or "g". Values of attributes are never written,
 * only names.
 */
import type { RedisConnection } from "./connection";
import { DirectoryKeys } from "./keys";
import { defineStoreCommands, type StoreCommands } from "./scripts";
import type { SyncKind } from "./sync-state";

/** One event of a trail. */
export interface ActivityEvent {
  /** idp: a SCIM write from the IdP; applied: the reconciler's outcome; call: one platform call (one try);
   *  retry / paused / rate-limited / failed / waiting: what became of a failed reconcile. */
  type: "idp" | "applied" | "call" | "retry" | "paused" | "rate-limited" | "failed" | "waiting";
  at: string;
  method?: string;
  path?: string;
  status?: number;
  message?: string;
  /** idp: names of the attributes the request set or changed (never their values). */
  attributes?: string[];
  /** applied: the reconciler's outcome (created, updated, unchanged, deactivated, deleted, …). */
  outcome?: string;
  attempt?: number;
  durationMs?: number;
}

/** How often the SCIM server writes the IdP events it buffered (the `flushMs` below). */
export const TRAIL_FLUSH_MS = 200;

export class ActivityStore {
  private readonly redis: RedisConnection & StoreCommands;
  /** Events waiting for the next write (with `flushMs`), per trail, oldest first. */
  private pending = new Map<string, { dir: string; events: string[] }>();
  private timer?: NodeJS.Timeout;
  /** Writes run one after the other, so a trail's events keep their order. */
  private chain: Promise<void> = Promise.resolve();

  /**
   * `flushMs` (the SCIM server): events are kept in the process and written every `flushMs`, all in one
   * turn of the event loop, instead of one script per SCIM write in a turn of its own. Each such write was a
   * socket write to Redis of its own; on Redis Cluster, where a turn's commands go out once per master they
   * reach, the trail and chart writes made the server's push 0.81–0.91× of single Redis's (bench/scale).
   * An event is then up to `flushMs` late on the item view, and lost if the process dies before it is written.
   */
  constructor(
    redis: RedisConnection, private readonly keyPrefix: string, private readonly maxEvents = 50, private readonly retentionDays = 30,
    private readonly flushMs?: number,
  ) {
    this.redis = defineStoreCommands(redis);
  }

  key(dir: string, kind: SyncKind, id: string): string {
    return `${new DirectoryKeys(this.keyPrefix, dir).prefix}a:${kind === "user" ? "u" : "g"}:${id}`;
  }

  /**
   * Appends events in order, keeping the newest `maxEvents` (one script: appendActivity-1.lua); with
   * `flushMs`, at the next write of what is buffered.
   */
  async append(dir: string, kind: SyncKind, id: string, events: ActivityEvent[]): Promise<void> {
    if (!events.length) return;
    const key = this.key(dir, kind, id);
    const json = events.map((e) => JSON.stringify(e));
    if (this.flushMs === undefined) return this.write(key, json);
    let trail = this.pending.get(key);
    if (!trail) this.pending.set(key, (trail = { dir, events: [] }));
    trail.events.push(...json);
    // the stream keeps the newest maxEvents: older ones need not be sent
    if (trail.events.length > this.maxEvents) trail.events.splice(0, trail.events.length - this.maxEvents);
    if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = undefined; void this.flush().catch(() => undefined); }, this.flushMs);
      this.timer.unref();
    }
  }

  /** Writes what is buffered. */
  flush(): Promise<void> {
    const done = this.chain.then(async () => {
      const pending = this.pending;
      this.pending = new Map();
      await Promise.all([...pending].map(([key, trail]) => this.write(key, trail.events)));
    });
    this.chain = done.catch(() => undefined);
    return done;
  }

  /**
   * Drops what is buffered for a directory this process stops serving (disabled, deleted): written later,
   * it would re-create trails of a directory whose keys the delete has just purged.
   */
  forget(dir: string): void {
    for (const [key, trail] of this.pending) if (trail.dir === dir) this.pending.delete(key);
  }

  /** Stops the timer and writes what is buffered. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private async write(key: string, events: string[]): Promise<void> {
    await this.redis.appendActivity(key, String(this.maxEvents), String(this.retentionDays * 86400), ...events);
  }

  /** The trail, newest first. */
  async read(dir: string, kind: SyncKind, id: string): Promise<ActivityEvent[]> {
    const entries = await this.redis.xrevrange(this.key(dir, kind, id), "+", "-", "COUNT", this.maxEvents);
    return entries.map(([, fields]) => {
      try { return JSON.parse(fields[1]) as ActivityEvent; } catch { return undefined; }
    }).filter((e): e is ActivityEvent => !!e);
  }
}
