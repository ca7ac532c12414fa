/**
 * What the operator commands (status, retry-failed, resync) need from a bridge, whichever way they reach
 * it: straight through Redis with the local configuration (`redis-backend.ts`), or through a running
 * bridge's admin API (`admin-api-backend.ts`, `--url` / SCIM_BRIDGE_URL).
 */
import type { DirectoryStatus } from "../../admin/directory-status";
import type { ResyncProgress } from "../../sync/resync";

export interface OpsBackend {
  /** Every directory's status. */
  statuses(): Promise<DirectoryStatus[]>;
  /** Throws `UnknownDirectoryError` unless the bridge has this directory. */
  requireDirectory(dir: string): Promise<void>;
  /** Queues every failed item again; resolves with how many. */
  retryFailed(dir: string): Promise<number>;
  /** The directory's latest resync. */
  readResync(dir: string): Promise<ResyncProgress>;
  /** Starts a resync; resolves with the running one instead when one was already running. */
  requestResync(dir: string): Promise<{ running?: ResyncProgress }>;
  close(): Promise<void>;
}

/** An unknown directory: a usage error (exit 2). */
export class UnknownDirectoryError extends Error {
  constructor(dir: string, known: string[]) {
    super(`unknown directory "${dir}" (configured: ${known.join(", ") || "none"})`);
    this.name = this.constructor.name;
  }
}
