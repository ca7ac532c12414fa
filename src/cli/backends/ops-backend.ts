/**
 * What the operator commands (status, retry-failed, resync, brake, explain, sync-now, resume) need from a bridge, whichever way they reach
 * it: straight through Redis with the local configuration (`redis-backend.ts`), or through a running
 * bridge's admin API (`admin-api-backend.ts`, `--url` / SCIM_BRIDGE_URL).
 */
import type { DirectoryStatus } from "../../admin/directory-status";
import type { PlanReport, ResyncProgress } from "../../sync/resync/resync";
import type { AnswerResult } from "../../sync/resync/confirm";
import type { PlanItem } from "../../sync/resync/plan";
import type { HandoverRequest, HandoverResult } from "../../sync/ownership/ownership-handover";
import type { BrakeAnswer, BrakeStatus } from "../../sync/brake/brake";
import type { KeepNameResult } from "../../sync/ownership/keep-name";
import type { RequestLogPage } from "../../scim/request-log/request-log-store";
import type { Explanation } from "../../explain/explain";
import type { SyncNowResult } from "../../explain/sync-now";
import type { RequestLogFilters } from "../../scim/request-log/request-log-query";

export interface OpsBackend {
  /** Every directory's status. */
  statuses(): Promise<DirectoryStatus[]>;
  /** Throws `UnknownDirectoryError` unless the bridge has this directory. */
  requireDirectory(dir: string): Promise<void>;
  /** Queues every failed item again; resolves with how many. */
  retryFailed(dir: string): Promise<number>;
  /** The directory's latest resync (with what it would deprovision while it awaits confirmation). */
  readResync(dir: string): Promise<ResyncProgress & { deprovisions?: PlanItem[] }>;
  /** Starts a dry run; resolves with the id its plan will carry. */
  requestDryRun(dir: string, by: string): Promise<string>;
  /** The latest dry run's report. */
  readPlan(dir: string): Promise<PlanReport | undefined>;
  /** Confirms or cancels the deprovisions a resync holds. */
  answerResync(dir: string, action: "confirm" | "cancel", by: string): Promise<AnswerResult>;
  /** Starts a resync; resolves with the running one instead when one was already running. */
  requestResync(dir: string): Promise<{ running?: ResyncProgress }>;
  /** The directory's deprovision brake: state, counts, limits, held list, audit. */
  readBrake(dir: string): Promise<BrakeStatus>;
  /** Confirms (applies) or cancels (releases) the deprovisions the brake holds. */
  answerBrake(dir: string, action: "confirm" | "cancel", by: string): Promise<BrakeAnswer>;
  /** Gives a group's platform name to it, displacing the group that holds it (a same-name conflict). */
  keepName(dir: string, groupId: string, by: string): Promise<KeepNameResult>;
  /** Hands a platform resource over to another directory of its account. */
  handOver(req: HandoverRequest, by: string): Promise<HandoverResult>;
  /** A page of the directory's SCIM request log, newest first (filters: request-log-query.ts). */
  readRequests(dir: string, filters: RequestLogFilters): Promise<RequestLogPage>;
  /** Why a user or group is (not) on the platform (src/explain/explain.ts). */
  explain(dir: string, resource: string): Promise<Explanation>;
  /** Runs the resource's reconcile now, step by step (src/explain/sync-now.ts). */
  syncNow(dir: string, resource: string, by: string): Promise<SyncNowResult>;
  /** Resumes a paused directory (its backlog is admitted again). */
  resume(dir: string): Promise<void>;
  close(): Promise<void>;
}

/** An unknown directory: a usage error (exit 2). */
export class UnknownDirectoryError extends Error {
  constructor(dir: string, known: string[]) {
    super(`unknown directory "${dir}" (configured: ${known.join(", ") || "none"})`);
    this.name = this.constructor.name;
  }
}
