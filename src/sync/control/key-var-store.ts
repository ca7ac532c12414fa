/**
 * Which environment variables the running workers hold, so that a directory made at runtime naming a key
 * variable no worker has is refused (as `config check` refuses it for the config file) instead of waiting
 * forever. Every worker advertises the names of its set variables every ADVERTISE_MS; an advertisement
 * stands for TTL_MS, so a stopped worker's names fade within it. Names are stored as a truncated SHA-256
 * (no environment text in Redis; never a value). One ZSET (`keyVarsKey`): member = hashed name, score = the
 * time its last advertisement expires; writes go in slices of at most 1,000 names.
 */
import { createHash } from "node:crypto";
import type { RedisConnection } from "../../store/connection";
import { keyVarsKey } from "../../store";

/** How often a worker advertises its variables, and how long one advertisement stands. */
export const ADVERTISE_MS = 10_000;
export const TTL_MS = 3 * ADVERTISE_MS;
const SLICE = 1000;

const hashName = (name: string) => createHash("sha256").update(name).digest("hex").slice(0, 16);

export class KeyVarStore {
  private readonly key: string;
  constructor(private readonly redis: RedisConnection, keyPrefix: string) {
    this.key = keyVarsKey(keyPrefix);
  }

  /** Advertises the set (non-empty) variables of `env` until `TTL_MS` from now, and drops expired names. */
  async advertise(env: NodeJS.ProcessEnv, now = Date.now()): Promise<void> {
    const names = Object.keys(env).filter((k) => !!env[k]).map(hashName);
    const until = now + TTL_MS;
    for (let i = 0; i < names.length; i += SLICE) {
      await this.redis.zadd(this.key, ...names.slice(i, i + SLICE).flatMap((n) => [until, n]));
    }
    await this.redis.zremrangebyscore(this.key, "-inf", now);
    await this.redis.pexpire(this.key, TTL_MS);
  }

  /** Does a running worker hold the variable `name` (advertised within TTL_MS)? */
  async held(name: string, now = Date.now()): Promise<boolean> {
    const score = await this.redis.zscore(this.key, hashName(name));
    return score !== null && Number(score) > now;
  }
}
