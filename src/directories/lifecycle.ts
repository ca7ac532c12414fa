/**
 * What the admin API does to directories at runtime: create (validated by the config schema, answered
 * with the SCIM base URL and a first token, shown once), update, disable / enable and delete. Each write
 * goes to Redis, announces itself on the change channel (every process reloads within moments) and
 * reloads this process's registry before answering, so the next request here already sees it.
 */
import { mergeConfig } from "../config/load";
import type { Config } from "../config/schema";
import type { DirectoryRecord } from "./directory-records";
import type { SyncQueues } from "../sync/admission/queues";
import { liftDeletePause } from "../sync/deleting/deleting";
import { newCredential, type NewCredential } from "../auth/credentials";
import { answerDeprovision, requestDeprovision, type DeprovisionReply } from "./deprovision";
import { DirectoryChangeError } from "./errors";
import type { DirectoryRegistry } from "./registry";
import { validateDirectoryInput } from "./validate";
import { runtimeDirectoryIssues } from "./runtime-checks";
import type { KeyVarStore } from "../sync/control/key-var-store";

export { DirectoryChangeError } from "./errors";

export interface LifecycleDeps {
  config: Config;
  registry: DirectoryRegistry;
  queues: SyncQueues;
  /** The key variables the running workers hold; without it, runtime directories' key variables are not checked. */
  keyVars?: KeyVarStore;
}

function records(r: DirectoryRegistry) {
  if (!r.records) throw new DirectoryChangeError(503, "directories cannot be changed here (no Redis registry)");
  return r.records;
}

function runtimeOnly(d: LifecycleDeps, id: string): void {
  const e = d.registry.get(id);
  if (!e) throw new DirectoryChangeError(404, `unknown directory "${id}"`);
  if (e.source === "config") {
    throw new DirectoryChangeError(409, `directory "${id}" is from config (read-only here): change it in the config file and restart, or disable it`);
  }
}

/** Creates a runtime directory and its first token. */
export async function createDirectory(d: LifecycleDeps, input: unknown, tokenLabel = "first token"): Promise<{ id: string; token: NewCredential }> {
  const v = validateDirectoryInput(input);
  if (!v.ok) throw new DirectoryChangeError(400, "invalid directory", v.issues);
  const issues = await runtimeDirectoryIssues(v.dir, d.keyVars);
  if (issues.length) throw new DirectoryChangeError(400, "invalid directory", issues);
  const id = v.dir.id;
  if (d.registry.get(id)) throw new DirectoryChangeError(409, `directory "${id}" exists${d.registry.get(id)!.source === "config" ? " (from config)" : ""}`);
  const now = new Date().toISOString();
  const rec: DirectoryRecord = { input: input as Record<string, unknown>, disabled: false, createdAt: now, updatedAt: now };
  const token = newCredential("token", tokenLabel);
  // the token first: the directory is never served without one
  await records(d.registry).addCredential(id, token.record);
  if (!(await records(d.registry).create(id, rec))) throw new DirectoryChangeError(409, `directory "${id}" exists`);
  await d.registry.reload();
  return { id, token };
}

/** Changes a runtime directory: `patch` is merged over its settings (objects key by key, arrays replaced). */
export async function updateDirectory(d: LifecycleDeps, id: string, patch: unknown): Promise<void> {
  runtimeOnly(d, id);
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) throw new DirectoryChangeError(400, "expected a JSON object of the settings to change");
  if ("id" in patch && (patch as { id: unknown }).id !== id) throw new DirectoryChangeError(400, "id cannot change: create a new directory instead");
  const rec = await records(d.registry).get(id);
  if (!rec) throw new DirectoryChangeError(404, `unknown directory "${id}"`);
  const input = mergeConfig(rec.input, patch as Record<string, unknown>);
  const v = validateDirectoryInput(input);
  if (!v.ok) throw new DirectoryChangeError(400, "invalid directory", v.issues);
  const issues = await runtimeDirectoryIssues(v.dir, d.keyVars, d.registry.get(id)?.dir);
  if (issues.length) throw new DirectoryChangeError(400, "invalid directory", issues);
  await records(d.registry).put(id, { ...rec, input, updatedAt: new Date().toISOString() });
  await d.registry.reload();
}

/**
 * Disables or enables a directory. Disabled: SCIM answers 403, the workers stop taking its jobs and the
 * dispatcher leaves its outbox alone (nothing is dropped: queued work waits); enabled: all of it resumes.
 */
export async function setDisabled(d: LifecycleDeps, id: string, disabled: boolean): Promise<void> {
  const e = d.registry.get(id);
  if (!e) throw new DirectoryChangeError(404, `unknown directory "${id}"`);
  if (e.source === "config") await records(d.registry).setConfigDisabled(id, disabled);
  else {
    const rec = await records(d.registry).get(id);
    if (!rec) throw new DirectoryChangeError(404, `unknown directory "${id}"`);
    if (!disabled && rec.deprovision) {
      throw new DirectoryChangeError(409, `directory "${id}" is being deleted with platform=deprovision: cancel that first (DELETE /admin/directories/${id}?platform=deprovision&cancel=true)`);
    }
    await records(d.registry).put(id, { ...rec, disabled, updatedAt: new Date().toISOString() });
  }
  // a deprovision that was cancelled left the directory paused: enabling it lifts that pause
  if (!disabled) await liftDeletePause(records(d.registry).redis, d.config.redis.keyPrefix, id);
  await d.registry.reload();
}

export type PlatformChoice = "leave" | "deprovision";

/** Checks of a disabled directory's jobs while a delete waits for them to finish. */
const DRAIN_POLL_MS = 100;

/**
 * Waits until no job of the directory is admitted into its shard (a disabled directory's jobs that have
 * not started are parked by the workers; running ones finish), at most long enough for a job's platform
 * calls to time out. False when some still run.
 */
async function jobsFinished(d: LifecycleDeps, id: string): Promise<boolean> {
  const waitMs = Math.max(10_000, 3 * (d.registry.get(id)?.dir.platform.timeoutMs ?? 0));
  const end = Date.now() + waitMs;
  while ((await d.queues.admission.inflight(id)) > 0) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
  }
  return true;
}

/** How a delete is asked for: the platform choice, and for `deprovision` the operator's answer. */
export interface DeleteRequest {
  platform: unknown;
  /** Apply the held deprovision run (`deprovision` only). */
  confirm?: boolean;
  /** Drop it: nothing deprovisioned, the directory stays disabled and intact. */
  cancel?: boolean;
  /** Who asks, for the audit. */
  by: string;
}

/**
 * Deletes a disabled runtime directory and purges every key it had (store, sync state, queue, credentials,
 * counters). `leave` keeps the platform's users and groups as they are and deletes now (200);
 * `deprovision` plans the deprovision of what the bridge manages for it on the platform and holds it for
 * confirmation (202; src/directories/deprovision.ts); `confirm` applies it and the purge follows.
 */
export async function deleteDirectory(d: LifecycleDeps, id: string, q: DeleteRequest): Promise<DeprovisionReply> {
  runtimeOnly(d, id);
  if (q.platform !== "leave" && q.platform !== "deprovision") {
    throw new DirectoryChangeError(400, "say what happens on the platform: platform=leave (keep its users and groups as they are) or platform=deprovision (deactivate / remove what the bridge manages for it there, after a confirmation)");
  }
  if (!d.registry.get(id)!.disabled) throw new DirectoryChangeError(409, `disable directory "${id}" first (POST /admin/directories/${id}/disable)`);
  const r = records(d.registry);
  if (q.platform === "deprovision") {
    if (q.confirm && q.cancel) throw new DirectoryChangeError(400, "confirm or cancel, not both");
    const deps = { config: d.config, registry: d.registry, queues: d.queues, records: r };
    if (q.confirm || q.cancel) return answerDeprovision(deps, id, q.confirm ? "confirm" : "cancel", q.by);
    return requestDeprovision(deps, id, q.by);
  }
  if (q.confirm || q.cancel) throw new DirectoryChangeError(400, "confirm and cancel answer a delete with platform=deprovision");
  if ((await r.get(id))?.deprovision) {
    throw new DirectoryChangeError(409, `directory "${id}" is being deleted with platform=deprovision: cancel that first (DELETE /admin/directories/${id}?platform=deprovision&cancel=true)`);
  }
  // the answer says the directory is gone: no platform call of its may land after it, so the jobs a worker
  // still runs for it (started before the workers heard of the disable) finish first
  if (!(await jobsFinished(d, id))) {
    throw new DirectoryChangeError(503, `directory "${id}" still has platform calls in progress on a worker; nothing was deleted. Retry in a few seconds`);
  }
  await r.remove(id);
  await d.registry.reload();
  await d.queues.obliterate(id);
  const deletedKeys = await r.purgeKeys(id);
  await r.audit({ action: "deleted", directory: id, by: q.by, at: new Date().toISOString(), count: 0, platform: "leave", deletedKeys });
  return { status: 200, body: { deleted: id, deletedKeys } };
}
