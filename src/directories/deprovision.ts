/**
 * Deleting a directory with `platform=deprovision`, through the deprovisioning safeguard of a resync: one command never wipes a company's platform side. The first `delete` marks the disabled directory
 * (a worker then serves it for this run only, paused), and its deprovision run — a resync whose desired
 * state is empty: every platform user and group the bridge manages for this directory, and only those —
 * is planned and ALWAYS held for an operator, whatever the directory's `safety.maxDeprovisionPerResync`.
 * The answer lists what it would deprovision (202). `confirm` applies it, and once the platform side is
 * done the directory and its keys are purged (src/sync/deleting/deleting.ts); `cancel` leaves the directory disabled
 * and intact. Request, confirmation, cancellation and the purge are audited (who, when, how many) in the
 * directories' audit list, which outlives the purge.
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../config/schema";
import { SyncStateStore } from "../sync/state/sync-state";
import { ResyncStore, type ResyncProgress } from "../sync/resync/resync-store";
import { type DirectoryRecords } from "./directory-records";
import { DELETE_PAUSE_REASON } from "../sync/deleting/deleting";
import type { SyncQueues } from "../sync/admission/queues";
import { answerResync } from "../sync/resync/confirm";
import { DirectoryChangeError } from "./errors";
import type { DirectoryRegistry } from "./registry";

/** How long the request waits for a worker to plan the run before it answers without the list. */
const PLAN_WAIT_MS = 10_000;
const POLL_MS = 100;

export interface DeprovisionDeps {
  config: Config;
  registry: DirectoryRegistry;
  queues: SyncQueues;
  records: DirectoryRecords;
}

/** What a deprovision request or answer says: an HTTP status and the body. */
export interface DeprovisionReply {
  status: number;
  body: Record<string, unknown>;
}

const base = (id: string) => `/admin/directories/${encodeURIComponent(id)}`;
/** The directory's resync progress and held deprovisions. */
const resyncs = (d: DeprovisionDeps) => new ResyncStore(d.records.redis, d.config.redis.keyPrefix);

/** The view of a held (or still planning) deprovision run. */
async function view(d: DeprovisionDeps, id: string, p: ResyncProgress): Promise<DeprovisionReply> {
  const how = { confirm: `DELETE ${base(id)}?platform=deprovision&confirm=true`, cancel: `DELETE ${base(id)}?platform=deprovision&cancel=true` };
  if (p.status === "awaiting-confirmation" && p.phase === "awaiting-confirmation") {
    const deprovisions = await resyncs(d).held(id);
    return { status: 202, body: { directory: id, status: "awaiting-confirmation", resync: p.id, holdReason: p.holdReason, held: p.held, deprovisions, ...how } };
  }
  if (p.status === "done") {
    return { status: 500, body: { error: `the deprovision run of ${id} ended without holding: ${p.error ?? p.phase ?? "unknown"}`, progress: p } };
  }
  return { status: 202, body: { directory: id, status: "planning", resync: p.id, progress: `${base(id)}/resync`, note: "a worker is listing the platform side: read the plan at the progress URL", ...how } };
}

/** Starts (or shows again) the held deprovision run of a disabled runtime directory. */
export async function requestDeprovision(d: DeprovisionDeps, id: string, who: string): Promise<DeprovisionReply> {
  const prefix = d.config.redis.keyPrefix;
  const redis = d.records.redis;
  const rec = await d.records.get(id);
  if (!rec) throw new DirectoryChangeError(404, `unknown directory "${id}"`);
  const before = await resyncs(d).progress(id);
  if (rec.deprovision && before.purpose === "delete" && before.id === rec.deprovision.resync) {
    if (before.status === "awaiting-confirmation" || (before.status === "running" && !before.confirmedAt)) return view(d, id, before);
    if (before.confirmedAt && (before.status === "running" || rec.deprovision.stage === "purging" || before.failed === 0)) {
      throw new DirectoryChangeError(409, `the confirmed deprovision of ${id} is under way (confirmed by ${before.confirmedBy} at ${before.confirmedAt}); the directory is purged once it is done`);
    }
    // otherwise the run failed (its listing, or some items): it is planned again
  }
  if (before.status === "running" && before.purpose !== "delete") throw new DirectoryChangeError(409, `a resync of ${id} is running: wait for it to finish`);
  if (before.status === "awaiting-confirmation" && before.purpose !== "delete") {
    throw new DirectoryChangeError(409, `a resync of ${id} awaits confirmation of its deprovisions: cancel it first (POST ${base(id)}/resync/cancel)`);
  }
  const resync = randomUUID();
  const now = new Date().toISOString();
  // paused first: nothing of the directory is admitted once a worker serves it for this run
  await new SyncStateStore(redis, prefix).setMeta(id, { paused: DELETE_PAUSE_REASON, pausedAt: now });
  await d.records.put(id, { ...rec, deprovision: { stage: "running", requestedBy: who, requestedAt: now, resync }, updatedAt: now });
  await d.registry.reload();
  await d.queues.enqueueResync(id, who, { deprovision: resync });
  const deadline = Date.now() + PLAN_WAIT_MS;
  let p = await resyncs(d).progress(id);
  while (Date.now() < deadline && !(p.id === resync && (p.phase === "awaiting-confirmation" || p.status === "done"))) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    p = await resyncs(d).progress(id);
  }
  await d.records.audit({ action: "deprovision-requested", directory: id, by: who, at: now, count: p.id === resync ? p.held : 0, platform: "deprovision" });
  return view(d, id, p.id === resync ? p : { ...p, id: resync, status: "running", phase: "queued" });
}

/** Confirms or cancels the held deprovision run of a directory being deleted. */
export async function answerDeprovision(d: DeprovisionDeps, id: string, action: "confirm" | "cancel", who: string): Promise<DeprovisionReply> {
  const prefix = d.config.redis.keyPrefix;
  const p = await resyncs(d).progress(id);
  const rec = await d.records.get(id);
  if (!rec?.deprovision || p.purpose !== "delete" || p.id !== rec.deprovision.resync) {
    throw new DirectoryChangeError(409, `no deprovision of ${id} awaits an answer: delete it with platform=deprovision first`);
  }
  const a = await answerResync({ redis: d.records.redis, keyPrefix: prefix, queues: d.queues }, id, action, who, rec.deprovision.resync);
  if (!a.answered) throw new DirectoryChangeError(409, a.reason);
  await d.registry.reload();
  return action === "confirm"
    ? { status: 202, body: { directory: id, confirmed: a.count, resync: a.resync, note: "the platform side is deprovisioned now; the directory and every key it has are purged once that is done", progress: `${base(id)}/resync` } }
    : { status: 200, body: { directory: id, cancelled: a.count, resync: a.resync, note: "nothing was deprovisioned; the directory stays disabled, with every key" } };
}
