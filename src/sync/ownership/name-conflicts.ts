/**
 * Two IdP resources that map to one platform name are never merged silently: before a
 * reconcile writes a platform group (workforce group, embed-tenant group) or an embed external user, it
 * claims the platform name (`src/sync/ownership/name-claims.ts`). The later one fails — a `MappingError`, so the
 * item is `failed` with a message naming both SCIM ids and the name (admin API, status page) — and is
 * reconciled again by itself when the name is free: the holder renamed or deleted, or itself renamed. A
 * renamed holder lets go of its old name only once the platform carries the new one, so nobody adopts the
 * platform resource that still has it.
 * A holder whose desired state no longer maps to the name (deleted or renamed, not yet reconciled) is
 * displaced at once.
 */
import type { SyncKind } from "../state/sync-state";
import type { ClaimSpace } from "./name-claims";
import { MappingError, type ReconcileContext } from "../context";
import { embedExternalId, embedGroupName } from "../mapping/embed-user";
import { OwnershipConflictError, ensureOwned } from "./ownership-guard";

const kindOf = (space: ClaimSpace): SyncKind => (space === "g" ? "group" : "user");

/** The platform name `id` maps to now (lower-cased), or undefined when it is gone or maps to none. */
async function wantedName(c: ReconcileContext, space: ClaimSpace, id: string): Promise<string | undefined> {
  if (space === "g") {
    const g = await c.groups.get(c.dir.id, id, false);
    if (!g) return undefined;
    const name = c.dir.target === "embed" ? embedGroupName(String(g.body.displayName), c.dir.embed!) : String(g.body.displayName);
    return name?.toLowerCase();
  }
  const u = await c.users.get(c.dir.id, id);
  return u && c.dir.embed ? embedExternalId(u, c.dir.embed)?.toLowerCase() : undefined;
}

/** Queues the resources that waited for `name` (now free). */
async function wake(c: ReconcileContext, space: ClaimSpace, name: string): Promise<void> {
  for (const id of await c.claims.takeWaiters(c.dir.id, space, name)) await c.enqueue(kindOf(space), id);
}

/** Claims `name` for `id`: the holder's id when another holds it and still wants it, else the name held before. */
export async function tryClaim(c: ReconcileContext, space: ClaimSpace, id: string, name: string): Promise<{ holder?: string; previous?: string }> {
  let r = await c.claims.claim(c.dir.id, space, id, name);
  if (!r.ok && (await wantedName(c, space, r.holder)) !== name.toLowerCase()) {
    r = await c.claims.claim(c.dir.id, space, id, name, r.holder);
  }
  return r.ok ? { previous: r.previous } : { holder: r.holder };
}

/** A claimed name; `settle()` after the platform write lets go of the name held before (a rename) and wakes its waiters. */
export interface Claimed {
  settle(): Promise<void>;
}

/**
 * Claims the platform name of a resource; throws a MappingError naming both resources when another holds
 * it. Call `settle()` once the platform carries the new name: only then may another resource take the old one.
 */
export async function claimPlatformName(c: ReconcileContext, space: ClaimSpace, id: string, name: string): Promise<Claimed> {
  const r = await tryClaim(c, space, id, name);
  if (r.holder) {
    const kind = kindOf(space);
    const what = space === "u" ? `the embed externalId "${name}"` : `the platform group name "${name}"`;
    throw new MappingError(
      `name conflict: ${kind} ${id} maps to ${what}, which ${kind} ${r.holder} of this directory already has; two IdP ${kind}s are never merged `
      + `into one — rename or delete one of them (SCIM ids ${r.holder} and ${id}) and this one syncs by itself`,
    );
  }
  return {
    settle: async () => {
      if (!r.previous) return;
      const old = await c.claims.letGo(c.dir.id, space, id, r.previous);
      if (old) await wake(c, space, old);
    },
  };
}

/** Lets go of the platform name a resource held (it is gone from the platform), handing the name to the next waiter. */
export async function releasePlatformName(c: ReconcileContext, space: ClaimSpace, id: string): Promise<void> {
  const old = await c.claims.letGo(c.dir.id, space, id);
  if (old) await wake(c, space, old);
}

/** True when this directory manages the embed-tenant group `name` (taken when nobody does). */
async function ownedHere(c: ReconcileContext, name: string): Promise<boolean> {
  try {
    await ensureOwned(c, "group", name);
    return true;
  } catch (err) {
    if (err instanceof OwnershipConflictError) return false;
    throw err;
  }
}

/**
 * Embed: the tenant-group names of a user's groups that those groups hold (claimed now if free) and that
 * no other directory sharing the tenant manages.
 */
export async function claimedGroupNames(c: ReconcileContext, groups: Array<{ value: string; display: string }>): Promise<string[]> {
  const out: string[] = [];
  for (const g of groups) {
    const name = embedGroupName(g.display, c.dir.embed!);
    if (name && !(await tryClaim(c, "g", g.value, name)).holder && await ownedHere(c, name)) out.push(name);
  }
  return out;
}
