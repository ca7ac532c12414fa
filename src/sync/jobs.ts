/**
 * Job names, payloads and queue naming. One BullMQ queue per directory (`dir-<id>`), so a directory's
 * pause (401), rate limit (429) and failures never hold another directory's work. Queue keys use the
 * hash-tagged prefix `{<keyPrefix>}` so each queue's keys stay on one Redis Cluster slot.
 */
import type { SyncKind } from "../store";

export const RECONCILE = "reconcile";
export const RESYNC = "resync";

/** Payload of a reconcile job: a key, never the state (the worker reads the latest desired state). */
export interface ReconcileJobData {
  kind: SyncKind;
  id: string;
}

/** Payload of a resync job. */
export interface ResyncJobData {
  requestedBy: string;
  /** A dry run: the id its plan is stored under. */
  dryRun?: string;
  /** The deprovisions an operator confirmed, of the resync of this id. */
  confirm?: string;
}

/** Queue name of a directory. */
export function queueName(directoryId: string): string {
  return `dir-${directoryId}`;
}

/** BullMQ prefix: hash-tagged so a queue's keys share a cluster slot. */
export function queuePrefix(keyPrefix: string): string {
  return `{${keyPrefix}}`;
}

/** Deduplication id of a resource: ≤ 1 active + ≤ 1 waiting reconcile per resource (keepLastIfActive). */
export function dedupId(kind: SyncKind, id: string): string {
  return `${kind}-${id}`;
}
