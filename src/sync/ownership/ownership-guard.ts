/**
 * The sync side of ownership (`src/sync/ownership/ownership-store.ts`): before a reconcile adopts,
 * changes or deprovisions a platform resource it makes sure its directory owns it (taking it when nobody
 * does); a resource another directory owns fails the item with a conflict naming that directory and the
 * way to hand it over. A resource the directory creates is its own.
 */
import type { OwnerSpace } from "./ownership-store";
import { MappingError, type ReconcileContext } from "../context";

/** What an owner space holds, for messages. */
const WHAT: Record<string, string> = { u: "platform user", g: "platform group", eu: "external user", eg: "embed-tenant group" };

/** The owner space of a kind of resource in this directory. */
export function ownerSpace(c: ReconcileContext, kind: "user" | "group"): OwnerSpace {
  if (c.dir.target === "workforce") return kind === "user" ? "u" : "g";
  return kind === "user" ? "eu" : `eg:${c.dir.embed!.tenantName}`;
}

/** Normalises a resource key of a space (embed group names are compared lower-cased). */
const keyOf = (space: OwnerSpace, resource: string) => (space.startsWith("eg:") ? resource.toLowerCase() : resource);

/** A resource owned by another directory. */
export class OwnershipConflictError extends MappingError {}

/** Ensures this directory owns the resource (takes it if unowned); throws a conflict naming the owner otherwise. */
export async function ensureOwned(c: ReconcileContext, kind: "user" | "group", resource: string, label?: string): Promise<void> {
  const space = ownerSpace(c, kind);
  const owner = await c.ownership.claim(c.dir.platform.baseUrl, space, keyOf(space, resource), c.dir.id);
  if (owner === c.dir.id) return;
  const what = WHAT[space.split(":")[0]];
  throw new OwnershipConflictError(
    `ownership conflict: ${what} ${resource}${label ? ` (${label})` : ""} is managed by directory "${owner}"; directory "${c.dir.id}" never adopts, `
    + `changes or deprovisions what another directory manages — to move it here: POST /admin/ownership/handover `
    + `{"space":"${space}","resource":"${resource}","to":"${c.dir.id}"} or scim-bridge handover ${space} ${resource} --to ${c.dir.id}`,
  );
}

/** Records that this directory owns a resource it just created. */
export async function recordOwned(c: ReconcileContext, kind: "user" | "group", resource: string): Promise<void> {
  const space = ownerSpace(c, kind);
  await c.ownership.record(c.dir.platform.baseUrl, space, keyOf(space, resource), c.dir.id);
}

/** Forgets ownership of a resource this directory deleted on the platform. */
export async function forgetOwned(c: ReconcileContext, kind: "user" | "group", resource: string): Promise<void> {
  const space = ownerSpace(c, kind);
  await c.ownership.forget(c.dir.platform.baseUrl, space, keyOf(space, resource), c.dir.id);
}

/** True unless another directory owns the resource (for reads that must not take it, e.g. a resync plan). */
export async function notOwnedByOther(c: ReconcileContext, kind: "user" | "group", resources: string[]): Promise<boolean[]> {
  const space = ownerSpace(c, kind);
  const owners = await c.ownership.owners(c.dir.platform.baseUrl, space, resources.map((r) => keyOf(space, r)));
  return owners.map((o) => !o || o === c.dir.id);
}
