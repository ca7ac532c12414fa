/**
 * A reconcile's life, from the outbox to done, as one state machine: its states, its transitions and who
 * moves each. Drawn in admission.md (a test keeps the drawing and this list equal). The admission keeps
 * three states in Redis (STORED_IN: one sorted set each, per directory); BullMQ keeps the job's own states
 * (waiting, active, delayed, completed, failed), which name the others.
 */
import type { DirectoryQueueKeys } from "../../store/queue-keys";

/** Every state of a resource's reconcile, and what it is. */
export const STATES = {
  outbox: "an entry in the directory's outbox stream, written with the change",
  backlog: "waiting for a slot in the directory's backlog (q:backlog); no job yet",
  admitted: "holds a slot (q:inflight); its job waits in the shard (BullMQ waiting, by turn)",
  running: "its job is active in a shard worker (BullMQ active); holds a slot unless back from waiting",
  held: "holds a slot; its job waits out the platform's Retry-After or a pause check (BullMQ delayed)",
  retrying: "its slot lent (q:retrying); its job waits out a retry backoff (BullMQ delayed)",
  waiting: "no slot; its job waits for other resources of its directory (BullMQ delayed, last turn)",
  failed: "no slot; its job failed for good (BullMQ failed); a transient failure is due for revival",
  done: "no slot; its job completed (BullMQ completed)",
} as const;

export type State = keyof typeof STATES;

/** The states the admission writes to Redis, each a sorted set of "<kind>:<id>" members per directory. */
export const STORED_IN = {
  backlog: "backlog",
  admitted: "inflight",
  retrying: "retrying",
} as const satisfies Partial<Record<State, keyof DirectoryQueueKeys>>;

export type StoredState = keyof typeof STORED_IN;
export const STORED_STATES = Object.keys(STORED_IN) as StoredState[];

/** A move from one state to another ("[*]" outside the machine) and who makes it. */
export interface Transition {
  from: State | "[*]";
  to: State | "[*]";
  /** The code that makes the move (a class's method, or BullMQ). */
  by: string;
}

/** Every move of a reconcile's life. */
export const TRANSITIONS: readonly Transition[] = [
  { from: "[*]", to: "outbox", by: "UserStore / GroupStore write" },
  { from: "[*]", to: "backlog", by: "SyncQueues.enqueue" },
  { from: "outbox", to: "backlog", by: "OutboxDispatcher via SyncQueues.dispatch" },
  { from: "backlog", to: "admitted", by: "SyncQueues.admit" },
  { from: "admitted", to: "backlog", by: "SyncQueues.recover or a refused add" },
  { from: "admitted", to: "running", by: "BullMQ Worker" },
  { from: "running", to: "admitted", by: "BullMQ stalled check" },
  { from: "running", to: "backlog", by: "shard worker gate: paused" },
  { from: "running", to: "held", by: "shard worker gate or outcome: 429, 401" },
  { from: "held", to: "running", by: "BullMQ delay" },
  { from: "running", to: "retrying", by: "shard worker: failed, attempts left" },
  { from: "retrying", to: "running", by: "BullMQ delay, then the gate" },
  { from: "running", to: "waiting", by: "outcome: WaitError" },
  { from: "waiting", to: "running", by: "BullMQ delay" },
  { from: "running", to: "done", by: "shard worker: SyncQueues.release" },
  { from: "running", to: "failed", by: "shard worker: SyncQueues.release" },
  { from: "failed", to: "backlog", by: "Revival.tick or an operator's retry" },
  { from: "done", to: "[*]", by: "BullMQ removeOnComplete" },
];

/** Where the admission keeps a resource in each state (admission.md's table): a stored state, or nothing. */
export const KEPT_AS: Record<State, StoredState | "none"> = {
  outbox: "none",
  backlog: "backlog",
  admitted: "admitted",
  running: "admitted",
  held: "admitted",
  retrying: "retrying",
  waiting: "none",
  failed: "none",
  done: "none",
};
