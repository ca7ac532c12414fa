/**
 * "Sync now" for one resource (like Entra's provision on demand): reads the platform's record, marks the
 * resource drifted when the platform differs from what was applied, and runs its reconcile here and now,
 * returning each step's result. The resource takes its slot in its directory's admission first, so no
 * worker runs it at the same time (one in flight per resource); a reconcile already running refuses it.
 * A failure is recorded as the worker records it (the platform's message; failed for good when the
 * platform refused the payload), and anything to retry is queued for the workers' usual backoff.
 */
import type { Logger } from "pino";
import type { PlatformCallInfo } from "../platform";
import type { SyncKind } from "../sync/state/sync-state";
import type { ActivityEvent, ActivityStore } from "../activity/activity-store";
import type { NameClaims } from "../sync/ownership/name-claims";
import type { Ownership } from "../sync/ownership/ownership-store";
import { DirectoryQueueKeys } from "../store/queue-keys";
import type { ReconcileContext } from "../sync/context";
import type { DeprovisionBrake } from "../sync/brake/brake";
import type { ExternalUserUsage } from "../sync/ownership/external-user-usage";
import { classify } from "../sync/admission/outcome";
import { reconcile } from "../sync/reconcile";
import { explainResolved, type ExplainDeps, type Explanation } from "./explain";
import { SyncNowRefused, UnknownResourceError } from "./errors";
import { resolveResource } from "./resolve-resource";

export interface SyncNowDeps extends ExplainDeps {
  usage: ExternalUserUsage;
  claims: NameClaims;
  ownership: Ownership;
  brake: DeprovisionBrake;
  logger: Logger;
  activity?: ActivityStore;
  /** Queues a reconcile for the workers (follow-ups, and a retry after a transient failure). */
  enqueue(dir: string, kind: SyncKind, id: string): Promise<void>;
  /** Frees the resource's admission slot and admits the next of the directory. */
  release(dir: string, kind: SyncKind, id: string): Promise<void>;
}

export interface SyncStep {
  step: "read" | "drift" | "call" | "reconcile";
  ok: boolean;
  detail: string;
  method?: string;
  path?: string;
  status?: number;
  durationMs?: number;
}

export interface SyncNowResult {
  directory: string;
  resource: Explanation["resource"];
  /** The reconcile's outcome (created, updated, deactivated, deleted, unchanged), or "error". */
  outcome: string;
  /** The failure's verdict and message (outcome "error"). */
  error?: { verdict: string; message: string };
  steps: SyncStep[];
  /** The blocker before the run (the read step's explanation). */
  before: Explanation["blocker"];
  sync: Explanation["sync"];
}

export { SyncNowRefused };

/** Runs the reconcile of the resource `ref` of `dirId` now; `by` is recorded in its trail. */
export async function syncNow(d: SyncNowDeps, dirId: string, ref: string, by: string): Promise<SyncNowResult> {
  const entry = d.directory(dirId);
  if (!entry) throw new Error(`unknown directory "${dirId}"`);
  if (entry.disabled) throw new SyncNowRefused(`directory ${dirId} is disabled: enable it first`);
  const r = await resolveResource(d, dirId, ref);
  if (!r) throw new UnknownResourceError(dirId, ref);
  const member = `${r.kind}:${r.id}`;
  const platform = d.platform(entry.dir);
  const steps: SyncStep[] = [];
  const trail: ActivityEvent[] = [];
  let claimed = false;
  try {
    // read before the slot is taken, so the blocker said is the one the operator saw, not this run
    const before = await explainResolved(d, entry.dir, false, r, platform);
    // the slot: a resource admitted (in flight) is never admitted again until released
    const inflight = new DirectoryQueueKeys(d.keyPrefix, dirId).inflight;
    if (!(await d.redis.zadd(inflight, "NX", Date.now(), member))) throw new SyncNowRefused(`${r.kind} ${r.id} is being reconciled now; explain it again in a moment`);
    claimed = true;
    steps.push({ step: "read", ok: !before.platform.error, detail: before.platform.error ?? (before.platform.read ? `platform record ${before.platform.record ? "found" : "absent"}; ${before.differences.length} difference(s)` : `not read: ${before.platform.why}`) });
    if (typeof platform === "string") throw new SyncNowRefused(`this process cannot call the platform for ${dirId}: ${platform}`);
    const st = before.sync;
    // applied as desired but changed on the platform: the reconcile applies it again, as a resync's would
    if (before.platform.read && !before.platform.error && before.lastApplied.platformId && before.differences.length && st.status === "synced" && !st.drift) {
      const drift = before.platform.record ? "changed" : "missing";
      await d.state.update(dirId, r.kind, r.id, { drift });
      steps.push({ step: "drift", ok: true, detail: `marked ${drift}: the platform differs in ${before.differences.map((x) => x.attribute).join(", ")}` });
    }
    const onCall = (c: PlatformCallInfo) => {
      steps.push({ step: "call", ok: c.status >= 200 && c.status < 300, detail: c.message ?? `${c.status}`, method: c.method, path: c.path, status: c.status, durationMs: c.durationMs });
      trail.push({ type: "call", method: c.method, path: c.path, status: c.status, durationMs: c.durationMs, ...(c.message ? { message: c.message } : {}), at: new Date().toISOString() });
    };
    const ctx: ReconcileContext = {
      dir: entry.dir, users: d.users, groups: d.groups, state: d.state, platform: platform.observed(onCall), usage: d.usage, claims: d.claims,
      ownership: d.ownership, logger: d.logger, brake: d.brake, enqueue: (kind, id) => d.enqueue(dirId, kind, id),
    };
    let outcome: string;
    let error: SyncNowResult["error"];
    try {
      outcome = await reconcile(ctx, r.kind, r.id);
      steps.push({ step: "reconcile", ok: true, detail: outcome });
      trail.push({ type: "applied", outcome, message: `sync now by ${by}`, at: new Date().toISOString() });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const verdict = classify(err);
      outcome = "error";
      error = { verdict, message };
      steps.push({ step: "reconcile", ok: false, detail: `${verdict}: ${message}` });
      trail.push({ type: "failed", message: `sync now by ${by}: ${message}`, at: new Date().toISOString() });
      // what the worker would record; a refusal is failed for good, anything else goes back to the workers
      if (verdict === "failed") await d.state.update(dirId, r.kind, r.id, { status: "failed", lastError: message, attempts: before.sync.attempts + 1 });
      else {
        await d.state.update(dirId, r.kind, r.id, { lastError: message });
        await d.enqueue(dirId, r.kind, r.id);
      }
    }
    await d.activity?.append(dirId, r.kind, r.id, trail).catch(() => undefined);
    const after = await d.state.get(dirId, r.kind, r.id);
    return {
      directory: dirId, resource: before.resource, outcome, ...(error ? { error } : {}), steps, before: before.blocker,
      sync: { status: after.status ?? null, attempts: after.attempts, lastError: after.lastError ?? null, changedAt: after.changedAt ?? null, syncedAt: after.syncedAt ?? null, drift: after.drift ?? null, brake: after.brake ?? null },
    };
  } finally {
    if (typeof platform !== "string") await platform.close().catch(() => undefined);
    if (claimed) await d.release(dirId, r.kind, r.id);
  }
}
