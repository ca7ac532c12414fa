/**
 * `explain <dir> <resource>`: why a user or group is (not) on the platform, with the action that clears
 * it; `sync-now <dir> <resource>`: its reconcile run now, step by step; `resume <dir>`: a paused directory
 * takes up its backlog again. They run on an `OpsBackend` (Redis with this machine's configuration, or a
 * running bridge's admin API).
 */
import type { Explanation } from "../../explain/explain";
import type { SyncNowResult } from "../../explain/sync-now";
import type { OpsBackend } from "../backends/ops-backend";

const show = (v: unknown) => (v === null || v === undefined ? "—" : JSON.stringify(v));

/** The explanation as lines a person reads. */
export function explanationLines(x: Explanation): string[] {
  const { resource: r, sync: s, queue: q, platform: p } = x;
  const lines = [
    `${r.kind} ${r.name ?? "(deleted in the IdP)"} (id ${r.id}) of ${x.directory}`,
    `blocker: ${x.blocker.code}: ${x.blocker.message}`,
    `action:  ${x.blocker.action}`,
    `sync:    ${s.status ?? "never synced"}, attempts ${s.attempts}${s.lastError ? `, last error: ${s.lastError}` : ""}${s.syncedAt ? `, synced at ${s.syncedAt}` : ""}${s.drift ? `, drift ${s.drift}` : ""}${s.brake ? `, brake ${s.brake}` : ""}`,
    `queue:   backlog ${q.backlog}${q.ahead !== null ? ` (${q.ahead} ahead of it)` : ""}, running ${q.running}, outbox ${q.outbox}${q.inFlightSince ? `, running it since ${q.inFlightSince}` : ""}${q.retryingSince ? `, retrying since ${q.retryingSince}` : ""}${q.heldUntil ? `, held (429) until ${q.heldUntil}` : ""}`,
    `desired: ${show(x.desired)}`,
    `applied: ${x.lastApplied.hash ? `hash ${x.lastApplied.hash.slice(0, 12)}… ${x.lastApplied.matchesDesired ? "= desired" : "≠ desired"}` : "nothing yet"}${x.lastApplied.at ? ` at ${x.lastApplied.at}` : ""}${x.lastApplied.platformId ? `, platform ${x.lastApplied.platformId}` : ""}`,
    `platform: ${p.error ? `read failed: ${p.error}` : p.read ? show(p.record) : `not read: ${p.why}`}`,
  ];
  if (x.differences.length) {
    lines.push("differences:");
    for (const d of x.differences) lines.push(`  ${d.attribute}: desired ${show(d.desired)}, platform ${show(d.platform)}`);
  }
  return lines;
}

/** `explain <dir> <resource> [--json]`. */
export async function explainCommand(b: OpsBackend, dir: string, resource: string, json: boolean, out: (s: string) => void): Promise<Explanation> {
  await b.requireDirectory(dir);
  const x = await b.explain(dir, resource);
  if (json) out(JSON.stringify(x, null, 2));
  else for (const l of explanationLines(x)) out(l);
  return x;
}

/** `sync-now <dir> <resource> [--json]`: resolves with the run; its outcome "error" means the reconcile failed. */
export async function syncNowCommand(b: OpsBackend, dir: string, resource: string, by: string, json: boolean, out: (s: string) => void): Promise<SyncNowResult> {
  await b.requireDirectory(dir);
  const r = await b.syncNow(dir, resource, by);
  if (json) { out(JSON.stringify(r, null, 2)); return r; }
  out(`sync now of ${r.resource.kind} ${r.resource.name ?? r.resource.id} (id ${r.resource.id}) of ${dir}; before: ${r.before.code}: ${r.before.message}`);
  r.steps.forEach((s, i) => {
    const call = s.method ? `${s.method} ${s.path} → ${s.status} (${s.durationMs} ms)${s.detail !== String(s.status) ? `: ${s.detail}` : ""}` : s.detail;
    out(`  ${i + 1}. ${s.step.padEnd(9)} ${s.ok ? "ok  " : "FAIL"} ${call}`);
  });
  out(r.error ? `failed (${r.error.verdict}): ${r.error.message}` : `done: ${r.outcome}; now ${r.sync.status}`);
  return r;
}

/** `resume <dir>`. */
export async function resumeCommand(b: OpsBackend, dir: string, out: (s: string) => void): Promise<void> {
  await b.requireDirectory(dir);
  const before = (await b.statuses()).find((d) => d.id === dir);
  await b.resume(dir);
  out(before?.paused ? `${dir} resumed (it was paused: ${before.paused.reason}); ${before.queue.waiting} change(s) in its backlog are admitted` : `${dir} was not paused; nothing to resume`);
}
