/**
 * The account-wide limit of external users ("external users per account: 10,000 (raisable through
 * support)"). External users are account-wide and the contract shows no way to delete one, so every
 * externalId ever provisioned counts, whichever directory provisioned it. Directories that talk to the same
 * platform account (same base URL) share one set: `<prefix>:acct:<sha1(baseUrl)>:external-users`.
 */
import { createHash } from "node:crypto";
import type { RedisConnection } from "../store/connection";

/** Raised when provisioning one more external user would pass the limit. */
export class ExternalUserLimitError extends Error {
  constructor(readonly limit: number) {
    super(`external user limit reached: the account has ${limit} of ${limit} external users (raise it through platform support)`);
    this.name = this.constructor.name;
  }
}

/*
  KEYS[1] the account's set; ARGV[1] externalId, ARGV[2] limit
  Output: {ok (1|0), usage after, added (1 when this call counted it)}
*/
const RESERVE = `
local n = redis.call('SCARD', KEYS[1])
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, n, 0} end
if n >= tonumber(ARGV[2]) then return {0, n, 0} end
redis.call('SADD', KEYS[1], ARGV[1])
return {1, n + 1, 1}`;

/** Share of the limit from which a warning is logged and shown ("a warning is logged and exposed at 90%"). */
export const EXTERNAL_USER_WARNING_RATIO = 0.9;

/** The external-user limit as operators see it (admin API). */
export interface ExternalUserUsageReport {
  count: number;
  limit: number;
  /** count / limit, 0..1 */
  ratio: number;
  /** at or above 90% of the limit */
  warning: boolean;
  /** at the limit: new external users fail, existing ones keep syncing */
  full: boolean;
}

/** True when `count` external users are at or above 90% of `limit`. */
export function atWarningLevel(count: number, limit: number): boolean {
  return count >= Math.ceil(limit * EXTERNAL_USER_WARNING_RATIO);
}

/** Builds the report of `count` external users against `limit`. */
export function externalUserUsageReport(count: number, limit: number): ExternalUserUsageReport {
  return { count, limit, ratio: limit ? count / limit : 1, warning: atWarningLevel(count, limit), full: count >= limit };
}

/** Usage of the external-user limit, shared by the directories of one platform account. */
export class ExternalUserUsage {
  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string) {}

  key(baseUrl: string): string {
    return `${this.keyPrefix}:acct:${createHash("sha1").update(baseUrl).digest("hex")}:external-users`;
  }

  /**
   * Counts `externalId` against the limit (idempotent for one already counted); throws
   * ExternalUserLimitError when it is new and the account is at the limit. Returns the usage after it, and
   * whether this call added it (so a call the platform refuses can give the slot back with `release`).
   */
  async reserve(baseUrl: string, externalId: string, limit: number): Promise<{ usage: number; added: boolean }> {
    const [ok, n, added] = (await this.redis.eval(RESERVE, 1, this.key(baseUrl), externalId, String(limit))) as [number, number, number];
    if (!ok) throw new ExternalUserLimitError(limit);
    return { usage: n, added: added === 1 };
  }

  /** Gives back a slot `reserve` added for an external user the platform refused to create. */
  async release(baseUrl: string, externalId: string): Promise<void> {
    await this.redis.srem(this.key(baseUrl), externalId);
  }

  /** Number of external users the account holds (as far as the bridge has provisioned them). */
  count(baseUrl: string): Promise<number> {
    return this.redis.scard(this.key(baseUrl));
  }

  /** The account's usage against `limit`, with the 90% warning flag. */
  async report(baseUrl: string, limit: number): Promise<ExternalUserUsageReport> {
    return externalUserUsageReport(await this.count(baseUrl), limit);
  }
}
