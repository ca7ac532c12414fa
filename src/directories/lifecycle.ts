/**
 * What the admin API does to directories at runtime: create (validated by the config schema, answered
 * with the SCIM base URL and a first token, shown once), update, disable / enable and delete. Each write
 * goes to Redis, announces itself on the change channel (every process reloads within moments) and
 * reloads this process's registry before answering, so the next request here already sees it.
 */
import { mergeConfig } from "../config/load";
import type { Config } from "../config/schema";
import type { DirectoryRecord } from "../store";
import type { SyncQueues } from "../sync/queues";
import { newCredential, type NewCredential } from "./credentials";
import type { DirectoryRegistry } from "./registry";
import { validateDirectoryInput } from "./validate";

/** A refusal the admin API turns into `status` + `{error, issues?}`. */
export class DirectoryChangeError extends Error {
  constructor(readonly status: number, message: string, readonly issues?: string[]) {
    super(message);
    this.name = this.constructor.name;
  }
}

export interface LifecycleDeps {
  config: Config;
  registry: DirectoryRegistry;
  queues: SyncQueues;
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
    await records(d.registry).put(id, { ...rec, disabled, updatedAt: new Date().toISOString() });
  }
  await d.registry.reload();
}

export type PlatformChoice = "leave" | "deprovision";

/**
 * Deletes a disabled runtime directory and purges every key it had (store, sync state, queue, credentials,
 * counters). `leave` keeps the platform's users and groups as they are.
 */
export async function deleteDirectory(d: LifecycleDeps, id: string, platform: unknown): Promise<{ deletedKeys: number }> {
  runtimeOnly(d, id);
  if (platform !== "leave" && platform !== "deprovision") {
    throw new DirectoryChangeError(400, "say what happens on the platform: platform=leave (keep its users and groups as they are) or platform=deprovision");
  }
  if (platform === "deprovision") {
    throw new DirectoryChangeError(501, "platform=deprovision is not available yet: to deprovision, unassign the users and groups in the IdP and let the bridge sync the removals (or run a resync and confirm the deprovisions it holds), then disable and delete with platform=leave");
  }
  if (!d.registry.get(id)!.disabled) throw new DirectoryChangeError(409, `disable directory "${id}" first (POST /admin/directories/${id}/disable)`);
  const r = records(d.registry);
  await r.remove(id);
  await d.registry.reload();
  await d.queues.obliterate(id);
  const deletedKeys = await r.purgeKeys(id);
  return { deletedKeys };
}
