/**
 * Waits and lookups shared by the sync integration tests: a resource's sync status, the simulator's copy
 * of a user or group, the reconcile jobs BullMQ ran for a resource.
 */
import type { Job } from "bullmq";
import type { SyncKind, SyncRecord, SyncStatus } from "../../src/sync/state/sync-state";
import { userBody } from "./expect-scim";
import { waitFor, type SimStateView, type SyncEnv } from "./sync-env";
import { directoryQueue } from "./directory-queue";

type SimUser = SimStateView["scim"]["users"][number];
type SimGroup = SimStateView["scim"]["groups"][number];

/** Waits until the resource's sync status is `status`; returns its sync record. */
export async function waitStatus(e: SyncEnv, dir: string, kind: SyncKind, id: string, status: SyncStatus, timeoutMs = 15000): Promise<SyncRecord> {
  return waitFor(async () => {
    const s = await e.state.get(dir, kind, id);
    return s.status === status ? s : undefined;
  }, timeoutMs, `${dir} ${kind} ${id} to be ${status}`);
}

/** Waits until every id is `synced`. */
export async function waitAllSynced(e: SyncEnv, dir: string, kind: SyncKind, ids: string[], timeoutMs = 20000): Promise<void> {
  await waitFor(async () => {
    const states = await Promise.all(ids.map((id) => e.state.get(dir, kind, id)));
    const left = states.filter((s) => s.status !== "synced").length;
    return left === 0 ? true : undefined;
  }, timeoutMs, `${ids.length} ${kind}s of ${dir} to be synced`);
}

/** The simulator's user with this userName (case-insensitive), if any. */
export async function simUser(e: SyncEnv, userName: string): Promise<SimUser | undefined> {
  return (await e.simState()).scim.users.find((u) => u.userName.toLowerCase() === userName.toLowerCase());
}

/** The simulator's group with this displayName, if any. */
export async function simGroup(e: SyncEnv, displayName: string): Promise<SimGroup | undefined> {
  return (await e.simState()).scim.groups.find((g) => g.displayName === displayName);
}

/** Calls the simulator answered on one endpoint, e.g. "PATCH /scim/v2/Groups/:id" (writes + reads). */
export async function endpointCalls(e: SyncEnv, endpoint: string): Promise<number> {
  const c = (await e.simState()).counters.endpoints[endpoint];
  return c ? c.reads + c.writes : 0;
}

/** Reconcile jobs of one resource in the given BullMQ states (default: completed). */
export async function reconcileJobs(e: SyncEnv, dir: string, kind: SyncKind, id: string, states: Array<"completed" | "failed" | "active" | "wait" | "delayed"> = ["completed"]): Promise<Job[]> {
  const jobs = await directoryQueue(e.queues, dir).getJobs(states, 0, -1);
  return jobs.filter((j) => j && j.name === "reconcile" && j.data.kind === kind && j.data.id === id);
}

/**
 * Waits until `n` reconcile jobs of the resource are in `state` and returns them. The sync state is written
 * inside the job, so a resource shows `synced` (or `failed`) a moment before its job is completed.
 */
export async function waitReconcileJobs(e: SyncEnv, dir: string, kind: SyncKind, id: string, n = 1, state: "completed" | "failed" = "completed"): Promise<Job[]> {
  return waitFor(async () => {
    const jobs = await reconcileJobs(e, dir, kind, id, [state]);
    return jobs.length >= n ? jobs : undefined;
  }, 5000, `${n} ${state} reconcile job(s) of ${dir} ${kind} ${id}`);
}

/** Waits until the directory's queue has no active, waiting or delayed job. */
export async function waitIdle(e: SyncEnv, dir: string, timeoutMs = 10000): Promise<void> {
  await waitFor(async () => {
    const c = await directoryQueue(e.queues, dir).getJobCounts("active", "waiting", "delayed", "prioritized");
    return Object.values(c).every((x) => x === 0);
  }, timeoutMs, `the ${dir} queue to drain`);
}

/** Creates a SCIM user in `dir` and returns its id (asserting 201). */
export async function createUser(e: SyncEnv, dir: string, userName: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await e.scim(dir).post("/Users", userBody(userName, extra));
  if (res.status !== 201) throw new Error(`POST /Users ${userName}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** Creates a SCIM group in `dir` with these member ids and returns its id (asserting 201). */
export async function createGroup(e: SyncEnv, dir: string, displayName: string, memberIds: string[] = []): Promise<string> {
  const res = await e.scim(dir).post("/Groups", {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName, members: memberIds.map((value) => ({ value })),
  });
  if (res.status !== 201) throw new Error(`POST /Groups ${displayName}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

