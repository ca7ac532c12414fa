/**
 * Per-minute counters of each directory for the status page's 24-hour charts, kept in Redis so every
 * server and worker adds to the same series:
 *
 *   P c:<series>   HASH  minute (Unix epoch minute) → value; fields older than 24 h are trimmed
 *
 * Series: `idp` (SCIM writes accepted), `calls` (platform calls), `callFailures` (platform calls that
 * failed), `queue` (highest queue depth seen in the minute), `lag` (longest time, in ms, from a change's
 * job being queued to its reconcile finishing). Counters add (HINCRBY); gauges keep the minute's highest.
 */
import type { RedisConnection } from "./connection";
import { DirectoryKeys } from "./keys";
import { inlineCommand } from "./scripts";

export const SERIES = ["idp", "calls", "callFailures", "queue", "lag"] as const;
export type Series = typeof SERIES[number];

const DAY_MINUTES = 24 * 60;
/** A trim of one series happens at most this often per process. */
const TRIM_EVERY_MS = 10 * 60_000;

/*
  KEYS[1] the series hash; ARGV[1] minute, ARGV[2] value
  Keeps the highest value of the minute.
*/
const MAX = `
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if tonumber(ARGV[2]) > cur then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1`;

export function minuteOf(ms: number): number {
  return Math.floor(ms / 60_000);
}

export class MinuteCounters {
  private readonly trimmed = new Map<string, number>();
  private readonly maxScript: (...args: string[]) => Promise<number>;

  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {
    this.maxScript = inlineCommand(redis, "minuteCounterMax", 1, MAX);
  }

  key(dir: string, series: Series): string {
    return `${new DirectoryKeys(this.keyPrefix, dir).prefix}c:${series}`;
  }

  /** Adds `n` to this minute's count. */
  async add(dir: string, series: Series, n = 1, now = Date.now()): Promise<void> {
    await this.redis.hincrby(this.key(dir, series), String(minuteOf(now)), n);
    await this.trim(dir, series, now);
  }

  /** Keeps the highest `value` of this minute. */
  async max(dir: string, series: Series, value: number, now = Date.now()): Promise<void> {
    await this.maxScript(this.key(dir, series), String(minuteOf(now)), String(Math.round(value)));
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
