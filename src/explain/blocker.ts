/**
 * The one thing that keeps a resource from being on the platform as the IdP wants it, said in words, with
 * the action that clears it. Checked in the order an operator has to act on them: a directory that is off
 * or paused holds everything; a safeguard holds one deprovision; the platform's wait (429) or outage holds
 * every call; then the resource's own state (failed, conflict) and its place in line.
 */
import type { SyncRecord } from "../sync/state/sync-state";
import type { Standing } from "../sync/waiting/waiting";
import type { PlatformView } from "./platform-view";

export type BlockerCode =
  | "in-sync" | "disabled" | "paused" | "held-by-brake" | "rate-limited" | "platform-unreachable" | "ownership-conflict"
  | "name-conflict" | "failed" | "running" | "retrying" | "queued" | "in-outbox" | "not-queued" | "platform-differs";

export interface Blocker {
  code: BlockerCode;
  /** What holds it, in words. */
  message: string;
  /** What clears it (the CLI command and the admin route). */
  action: string;
}

export interface BlockerFacts {
  dir: string;
  kind: "user" | "group";
  id: string;
  disabled: boolean;
  meta: Record<string, string>;
  st: SyncRecord;
  standing: Standing;
  view: PlatformView;
  /** The IdP still has the resource (false: deleted there). */
  exists: boolean;
}

const ref = (f: BlockerFacts) => `scim-bridge sync-now ${f.dir} ${f.id} (POST /admin/directories/${f.dir}/sync-now {"resource":"${f.id}"})`;

/** Up to date: applied as desired, and the platform's record (when read) agrees. */
function upToDate(f: BlockerFacts): boolean {
  const { st, view } = f;
  if (!f.exists) return st.status === "deprovisioned" || (!st.status && !st.platformId);
  return (st.status === "synced" || st.status === "deprovisioned") && view.lastApplied.matchesDesired && !st.drift;
}

/** The current blocker of the resource (or "in-sync"). */
export function blockerOf(f: BlockerFacts): Blocker {
  const { dir, st, standing: s, meta } = f;
  const waiting = s.backlog + s.outbox;
  if (f.disabled) {
    return { code: "disabled", message: `directory ${dir} is disabled: SCIM answers 403 and nothing syncs`, action: `scim-bridge directory enable ${dir} (POST /admin/directories/${dir}/enable)` };
  }
  if (meta.paused !== undefined) {
    return {
      code: "paused", message: `directory ${dir} is paused${meta.pausedAt ? ` since ${meta.pausedAt}` : ""}: ${meta.paused || "by an operator"}; ${waiting} change(s) wait in its backlog`,
      action: `fix the cause, then resume it: scim-bridge resume ${dir} (POST /admin/directories/${dir}/resume)`,
    };
  }
  const current = upToDate(f);
  if (st.brake === "held") {
    return { code: "held-by-brake", message: "its deprovision is held by the deprovision brake (a burst of deprovisions waits for a person)", action: `review what the brake holds, then scim-bridge brake ${dir} confirm (apply them) or cancel (keep them active) (POST /admin/directories/${dir}/brake)` };
  }
  if (!current && s.heldUntil) {
    return { code: "rate-limited", message: `the platform asked the directory to wait (429): nothing is sent before ${s.heldUntil}`, action: "none: it resumes by itself then" };
  }
  if (!current && meta.unreachableSince) {
    return {
      code: "platform-unreachable", message: `platform unreachable since ${meta.unreachableSince}${st.lastError ? ` (last error: ${st.lastError})` : ""}`,
      action: "none in the bridge: failed calls are retried, and what failed meanwhile is queued again when the platform answers; check the platform and the network",
    };
  }
  if (st.status === "failed") {
    const why = st.lastError ?? "no message recorded";
    if (why.startsWith("ownership conflict")) return { code: "ownership-conflict", message: why, action: "hand the platform resource to this directory (scim-bridge handover …, as the message says), or leave it to the directory that manages it" };
    if (why.startsWith("name conflict")) {
      return { code: "name-conflict", message: why, action: f.kind === "group" ? `rename or delete one of them in the IdP, or give the name to this group: scim-bridge keep-name ${dir} ${f.id}` : "rename or delete one of them in the IdP" };
    }
    return { code: "failed", message: `failed after ${st.attempts} attempt(s): ${why}`, action: `fix the cause (in the IdP or on the platform), then ${ref(f)}, or scim-bridge retry-failed ${dir}` };
  }
  if (s.inFlightSince) return { code: "running", message: `being reconciled now (admitted at ${s.inFlightSince})`, action: "none: wait for its result" };
  // a retry left waiting after the resource was applied some other way (sync-now) holds nothing: it will find it done
  if (s.retryingSince && !current) {
    return { code: "retrying", message: `its reconcile failed (attempt ${st.attempts}${st.lastError ? `: ${st.lastError}` : ""}) and waits out its retry delay since ${s.retryingSince}`, action: `none: it is retried with backoff; ${ref(f)} tries at once` };
  }
  if (s.ahead !== null) return { code: "queued", message: `queued behind ${s.ahead + s.running} item(s): ${s.ahead} ahead of it in the backlog, ${s.running} running`, action: `none: it runs in turn; ${ref(f)} runs it at once` };
  if (current) {
    const diffs = f.view.differences;
    if (diffs.length) {
      return { code: "platform-differs", message: `applied as desired, but the platform's record differs in ${diffs.map((d) => d.attribute).join(", ")} (changed on the platform)`, action: `${ref(f)} applies it again (a resync does too)` };
    }
    return { code: "in-sync", message: st.status === "deprovisioned" || !f.exists ? "in sync: deprovisioned on the platform as the IdP wants" : "in sync", action: "none" };
  }
  if (s.outbox > 0) return { code: "in-outbox", message: `its change waits in the outbox with ${s.outbox} other change(s) not yet taken into the backlog`, action: "none: a worker takes it shortly (is a worker running?)" };
  return { code: "not-queued", message: `out of date (${st.status ?? "never synced"}) and not queued: nothing will change it by itself`, action: ref(f) };
}
