/**
 * What a reconcile needs: the directory, the desired state, the sync state, the platform client, and a
 * way to ask for follow-up reconciles (e.g. a group whose member just got its platform id).
 */
import type { Logger } from "pino";
import type { DirectoryConfig } from "../config/schema";
import type { PlatformClient } from "../platform";
import type { GroupStore, UserStore } from "../store";
import type { SyncStateStore, SyncKind } from "./state/sync-state";
import type { NameClaims } from "./ownership/name-claims";
import type { Ownership } from "./ownership/ownership-store";
import type { ExternalUserUsage } from "./ownership/external-user-usage";
import type { DeprovisionBrake } from "./brake/brake";

/** What one reconcile did, for resync summaries and metrics. */
export type Outcome = "created" | "updated" | "deactivated" | "deleted" | "unchanged";

export interface ReconcileContext {
  dir: DirectoryConfig;
  users: UserStore;
  groups: GroupStore;
  state: SyncStateStore;
  platform: PlatformClient;
  usage: ExternalUserUsage;
  /** Who holds which platform name in the directory (src/sync/ownership/name-conflicts.ts). */
  claims: NameClaims;
  /** Which directory manages each platform resource of the account (src/sync/ownership/ownership-guard.ts). */
  ownership: Ownership;
  logger: Logger;
  /** The directory's deprovision brake (src/sync/brake/brake.ts); none: deprovisions are never held. */
  brake?: DeprovisionBrake;
  /** Enqueues a reconcile of another resource of the same directory (deduplicated). */
  enqueue(kind: SyncKind, id: string): Promise<void>;
}

/** A reconcile that must wait for other reconciles first (retried after a delay, no attempt spent). */
export class WaitError extends Error {
  constructor(message: string, readonly delayMs = 1000) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** A desired state the platform cannot take as it is (fails the item with this message, no retry). */
export class MappingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** True for a platform answer of 404 (the resource is gone there). */
export function isNotFound(err: unknown): boolean {
  return (err as { status?: number })?.status === 404;
}

/** True for a platform answer of 409 (uniqueness). */
export function isConflict(err: unknown): boolean {
  return (err as { status?: number })?.status === 409;
}
