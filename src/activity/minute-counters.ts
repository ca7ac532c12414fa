/**
 * Per-minute counters of each directory for the status page's 24-hour charts, kept in Redis so every
 * server and worker adds to the same series:
 *
 *   P c:<series>   HASH  minute (Unix epoch minute) → value; fields older than 24 h are trimmed
 *
 * Series: `idp` (SCIM writes accepted), `calls` (platform calls), `callFailures` (platform calls that
 * failed), `queue` (highest queue depth seen in the minute), `lag` (longest time, in ms, from a change's
 * job being queued to its reconcile finishing). Counters add (HINCRBY); gauges keep the minute's highest.
 *
 * With `flushMs` (the worker: a platform call and a reconcile each counted; the server: each IdP write) the
 * values are summed in the process and written every `flushMs`, one script call per directory: one Redis
 * command per call, reconcile or SCIM write would be a share of a worker's and Redis's CPU at platform speed.
 * The charts are per minute; a second's delay changes nothing they show. `close()` writes what is left.
 */
import type { RedisConnection } from "../store/connection";
import { DirectoryKeys } from "../store/keys";
import { defineStoreCommands, type StoreCommands } from "../store/scripts";

export const SERIES = ["idp", "calls", "callFailures", "queue", "lag"] as const;
export type Series = typeof SERIES[number];

const DAY_MINUTES = 24 * 60;
/** A trim of one series happens at most this often per process. */
const TRIM_EVERY_MS = 10 * 60_000;

export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000);
}

/** What waits to be written, per directory: `<series> <minute>` → [value, is a gauge]. */
type Pending = Map<string, Map<string, { value: number; gauge: boolean }>>;

export class MinuteCounters {
  private readonly trimmed = new Map<string, number>();
  private readonly scripts: RedisConnection & StoreCommands;
  private pending: Pending = new Map();
  private timer?: NodeJS.Timeout;
  /** Flushes run one after the other. */
  private chain: Promise<void> = Promise.resolve();

  /** `flushMs`: buffer in the process and write every `flushMs` (none: every value is written at once). */
  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string, private readonly flushMs?: number) {
    this.scripts = defineStoreCommands(redis);
  }

  /** Buffers a value; true when buffered (a `flushMs` counter), false when the caller writes it now. */
  private buffer(dir: string, series: Series, value: number, gauge: boolean, now: number): boolean {
    if (this.flushMs === undefined) return false;
    let byDir = this.pending.get(dir);
    if (!byDir) this.pending.set(dir, (byDir = new Map()));
    const field = `${series} ${minuteOf(now)}`;
    const cur = byDir.get(field);
    if (!cur) byDir.set(field, { value, gauge });
    else cur.value = gauge ? Math.max(cur.value, value) : cur.value + value;
    if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = undefined; void this.flush().catch(() => undefined); }, this.flushMs);
      this.timer.unref();
    }
    return true;
  }

  /** Writes the buffered values (one script call per directory: its keys share one hash tag). */
  flush(now = Date.now()): Promise<void> {
    const done = this.chain.then(() => this.write(now));
    this.chain = done.catch(() => undefined);
    return done;
  }

  private async write(now: number): Promise<void> {
    const pending = this.pending;
    if (!pending.size) return;
    this.pending = new Map();
    await Promise.all([...pending].map(async ([dir, fields]) => {
      const series: Series[] = [];
      const args: string[] = [];
      for (const [field, { value, gauge }] of fields) {
        const [name, minute] = field.split(" ") as [Series, string];
        let i = series.indexOf(name);
        if (i < 0) i = series.push(name) - 1;
        args.push(String(i + 1), minute, String(gauge ? Math.round(value) : value), gauge ? "max" : "add");
      }
      await this.scripts.writeMinuteCounters(series.length, ...series.map((name) => this.key(dir, name)), ...args);
      for (const name of series) await this.trim(dir, name, now);
    }));
  }

  /**
   * Drops what is buffered for a directory this process stops serving (disabled, deleted): written later,
   * it would re-create the keys of a directory whose keys the delete has just purged.
   */
  forget(dir: string): void {
    this.pending.delete(dir);
  }

  /** Stops the flush timer and writes what is buffered. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  key(dir: string, series: Series): string {
    return `${new DirectoryKeys(this.keyPrefix, dir).prefix}c:${series}`;
  }

  /** Adds `n` to this minute's count. */
  async add(dir: string, series: Series, n = 1, now = Date.now()): Promise<void> {
    if (this.buffer(dir, series, n, false, now)) return;
    await this.redis.hincrby(this.key(dir, series), String(minuteOf(now)), n);
    await this.trim(dir, series, now);
  }

  /** Keeps the highest `value` of this minute. */
  async max(dir: string, series: Series, value: number, now = Date.now()): Promise<void> {
    if (this.buffer(dir, series, value, true, now)) return;
    await this.scripts.writeMinuteCounters(1, this.key(dir, series), "1", String(minuteOf(now)), String(Math.round(value)), "max");
    await this.trim(dir, series, now);
  }

  /** The last 24 h, one value per minute, oldest first (0 where nothing was recorded). */
  async day(dir: string, series: Series, now = Date.now()): Promise<number[]> {
    const h = await this.redis.hgetall(this.key(dir, series));
    const end = minuteOf(now);
    const out = new Array<number>(DAY_MINUTES).fill(0);
    for (const [m, v] of Object.entries(h)) {
      const i = DAY_MINUTES - 1 - (end - Number(m));
      if (i >= 0 && i < DAY_MINUTES) out[i] = Number(v);
    }
    return out;
  }

  private async trim(dir: string, series: Series, now: number): Promise<void> {
    const key = this.key(dir, series);
    if (now - (this.trimmed.get(key) ?? 0) < TRIM_EVERY_MS) return;
    this.trimmed.set(key, now);
    const old = (await this.redis.hkeys(key)).filter((m) => Number(m) <= minuteOf(now) - DAY_MINUTES);
    if (old.length) await this.redis.hdel(key, ...old);
  }
}
