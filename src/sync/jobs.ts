/**
 * Job names, payloads and shard assignment. Every directory's jobs run on one of `sync.queueShards` BullMQ
 * queues (src/store/queue-keys.ts), chosen by a stable hash of the directory id, so the number of queues —
 * and of Redis connections a worker holds — does not grow with the directories. A job names its directory;
 * its admission into the shard (src/sync/admission/admission-store.ts) keeps one directory's pause (401), rate limit
 * (429), failures and backlog from holding another's work.
 */
import { createHash } from "node:crypto";
import type { SyncKind } from "./state/sync-state";

export const RECONCILE = "reconcile";
export const RESYNC = "resync";
/** Purges a directory deleted with `platform=deprovision` once its platform side is done. */
export const PURGE = "purge-directory";

/** Payload of a reconcile job: a key, never the state (the worker reads the latest desired state). */
export interface ReconcileJobData {
  dir: string;
  kind: SyncKind;
  id: string;
}

/** Payload of a resync job. */
export interface ResyncJobData {
  dir: string;
  requestedBy: string;
  /** A dry run: the id its plan is stored under. */
  dryRun?: string;
  /** The deprovisions an operator confirmed, of the resync of this id. */
  confirm?: string;
  /**
   * Part of a delete with `platform=deprovision`: the plan (the resync id to use, with `confirm` unset)
   * or its confirmation. Runs while the directory is paused for the operator's answer.
   */
  deprovision?: string;
}

/** Payload of a purge job. */
export interface PurgeJobData {
  dir: string;
}

/** The shard of a directory: stable across processes and restarts (md5 of the id, modulo the shard count). */
export function shardOf(directoryId: string, shards: number): number {
  return createHash("md5").update(directoryId).digest().readUInt32BE(0) % shards;
}

/** Backlog member of a resource: "<kind>:<id>". */
export function memberOf(kind: SyncKind, id: string): string {
  return `${kind}:${id}`;
}

/** The resource of a backlog member. */
export function parseMember(member: string): { kind: SyncKind; id: string } {
  const i = member.indexOf(":");
  return { kind: member.slice(0, i) as SyncKind, id: member.slice(i + 1) };
}

/** Deduplication id of a resource's reconcile in its shard: ≤ 1 active + ≤ 1 waiting (keepLastIfActive). */
export function dedupId(dir: string, kind: SyncKind, id: string): string {
  return `${dir}:${kind}-${id}`;
}

/** Deduplication id of a directory's resync job (`what`: "resync", or a dry run's or confirmation's own id). */
export function resyncDedupId(dir: string, what = "resync"): string {
  return `${dir}:${what}`;
}

/** Id of a directory's resync job scheduler in its shard. */
export function resyncSchedulerId(dir: string): string {
  return `scheduled-resync:${dir}`;
}
