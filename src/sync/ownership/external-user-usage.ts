/**
 * The account-wide limit of external users ("external users per account: 10,000 (raisable through
 * support)"). External users are account-wide and the contract shows no way to delete one, so every
 * externalId ever provisioned counts, whichever directory provisioned it. Directories that talk to the same
 * platform account (same base URL) share one set, kept by ExternalUserStore (src/sync/ownership/external-user-store.ts).
 */
import { type RedisConnection } from "../../store";
import { ExternalUserStore } from "./external-user-store";

/** Raised when provisioning one more external user would pass the limit. */
export class ExternalUserLimitError extends Error {
  constructor(readonly limit: number) {
    super(`external user limit reached: the account has ${limit} of ${limit} external users (raise it through platform support)`);
    this.name = this.constructor.name;
  }
}

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
  private readonly store: ExternalUserStore;
  constructor(redis: RedisConnection, keyPrefix: string) {
    this.store = new ExternalUserStore(redis, keyPrefix);
  }

  key(baseUrl: string): string {
    return this.store.key(baseUrl);
  }

  /**
   * Counts `externalId` against the limit (idempotent for one already counted); throws
   * ExternalUserLimitError when it is new and the account is at the limit. Returns the usage after it, and
   * whether this call added it (so a call the platform refuses can give the slot back with `release`).
   */
  async reserve(baseUrl: string, externalId: string, limit: number): Promise<{ usage: number; added: boolean }> {
    const { ok, usage, added } = await this.store.reserve(baseUrl, externalId, limit);
    if (!ok) throw new ExternalUserLimitError(limit);
    return { usage, added };
  }

  /** Gives back a slot `reserve` added for an external user the platform refused to create. */
  async release(baseUrl: string, externalId: string): Promise<void> {
    await this.store.release(baseUrl, externalId);
  }

  /** Number of external users the account holds (as far as the bridge has provisioned them). */
  count(baseUrl: string): Promise<number> {
    return this.store.count(baseUrl);
  }

  /** The account's usage against `limit`, with the 90% warning flag. */
  async report(baseUrl: string, limit: number): Promise<ExternalUserUsageReport> {
    return externalUserUsageReport(await this.count(baseUrl), limit);
  }
}
