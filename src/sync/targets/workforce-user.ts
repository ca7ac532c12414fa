/**
 * Workforce target, users: the desired SCIM user becomes an internal platform user through the
 * platform's SCIM API. Created first (no read before a write that usually succeeds); when the platform
 * answers 409 `uniqueness` (a platform user with the same userName exists) that user is looked up once and
 * adopted (never duplicated). The platform id is kept in the sync state, so it is never looked up again.
 * Replaced when the payload changed; deactivated (`active=false`) on IdP deactivation; on IdP
 * DELETE deactivated (default) or deleted (`workforce.onUserDelete: "delete"`); either only once the
 * directory's deprovision brake lets it through (src/sync/brake/brake.ts).
 * A reconcile whose payload equals the last one applied makes no call. An Entra soft-delete tombstone
 * name (mapping/entra-tombstone.ts) deactivates the platform user under the name it holds, never renames it.
 */
import type { SyncRecord } from "../state/sync-state";
import type { ReconcileContext, Outcome } from "../context";
import { MappingError, isConflict, isNotFound } from "../context";
import { isEntraTombstone } from "../mapping/entra-tombstone";
import { payloadHash } from "../mapping/payload-hash";
import { managedExternalId, workforceUserPayload } from "../mapping/workforce-user";
import { ensureOwned, forgetOwned, recordOwned } from "../ownership/ownership-guard";
import type { HeldDeprovision } from "../brake/brake-store";

const GONE = "deleted";

/** True when the deprovision brake holds (or an operator released) this deprovision: no platform call now. */
export async function held(c: ReconcileContext, item: Omit<HeldDeprovision, "at">, resync: boolean): Promise<boolean> {
  if (!c.brake) return false;
  return (await c.brake.gate(c.dir, item, resync)) !== "pass";
}

async function deprovisionDeleted(c: ReconcileContext, id: string, st: SyncRecord): Promise<Outcome> {
  const dirId = c.dir.id;
  if (!st.platformId) {
    await c.state.remove(dirId, "user", id);
    return "unchanged";
  }
  if (st.status === "deprovisioned" && st.hash === GONE && !st.drift) return "unchanged";
  // a burst of IdP deletes is held before the platform (the brake); a resync's deprovision is its safeguard's
  const action = c.dir.workforce.onUserDelete === "delete" ? "delete" : "deactivate";
  if (await held(c, { kind: "user", id, action, name: st.platformId, platformId: st.platformId, version: GONE }, !!st.drift)) return "unchanged";
  await ensureOwned(c, "user", st.platformId);
  if (c.dir.workforce.onUserDelete === "delete") {
    await c.platform.scim.deleteUser(st.platformId);
    await forgetOwned(c, "user", st.platformId);
  } else {
    try {
      await c.platform.scim.deactivateUser(st.platformId);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  await c.state.update(dirId, "user", id, { status: "deprovisioned", hash: GONE, attempts: 0, lastError: undefined, drift: undefined, syncedAt: new Date().toISOString() });
  return c.dir.workforce.onUserDelete === "delete" ? "deleted" : "deactivated";
}

/**
 * A platform user this bridge created for another user of the directory that still exists (its externalId
 * `<directory>:<id>`) is never adopted: a soft-deleted Entra user keeps its real name on the platform, and
 * a new user given that name meanwhile (Entra frees the UPN on soft delete) must not take over its account.
 */
async function refuseOtherUsersAccount(c: ReconcileContext, id: string, platformExternalId: string | undefined, userName: string): Promise<void> {
  const prefix = managedExternalId(c.dir.id, "");
  if (!platformExternalId?.startsWith(prefix)) return;
  const other = platformExternalId.slice(prefix.length);
  if (other === id || !(await c.users.getWithoutGroups(c.dir.id, other))) return;
  throw new MappingError(
    `the platform user named ${JSON.stringify(userName)} belongs to user ${other} of this directory (deactivated or soft-deleted there); `
    + `it is not adopted for user ${id}: rename one of them in the IdP, or delete user ${other} in the IdP`,
  );
}

/** Reconciles one user of a workforce directory. */
export async function reconcileWorkforceUser(c: ReconcileContext, id: string): Promise<Outcome> {
  const dirId = c.dir.id;
  // both reads in one round trip (sent together on the connection, answered in order); the payload does
  // not carry groups (User.groups is read-only), so they are not read
  const [desired, st] = await Promise.all([c.users.getWithoutGroups(dirId, id), c.state.get(dirId, "user", id)]);
  if (!desired) return deprovisionDeleted(c, id, st);

  const payload = workforceUserPayload(dirId, desired);
  const hash = payloadHash(payload);
  // an active user is no deprovision: one of it the brake knows of is forgotten (sent now, awaited before the answer)
  const cleared = payload.active !== false && st.brake ? c.brake?.clear(dirId, "user", id) : undefined;
  const atRest = st.status === "synced" || st.status === "deprovisioned";
  if (st.platformId && st.hash === hash && atRest && !st.drift) {
    await cleared;
    return "unchanged";
  }
  // active=false (a deactivation or a removal from scope) of a user active on the platform: the brake decides
  if (payload.active === false && st.platformId && st.status !== "deprovisioned"
    && await held(c, { kind: "user", id, action: "deactivate", name: String(payload.userName), platformId: st.platformId, version: hash }, !!st.drift)) {
    return "unchanged";
  }

  let platformId = st.drift === "missing" ? undefined : st.platformId;
  let outcome: Outcome = "updated";
  const tombstone = isEntraTombstone(desired.body);
  if (platformId && tombstone) {
    // the platform user keeps its real name (the one it holds now), and is deactivated under it
    const current = await c.platform.scim.getUser(platformId);
    if (current) payload.userName = current.userName;
    else platformId = undefined;
  }
  if (platformId) {
    await ensureOwned(c, "user", platformId, String(payload.userName));
    try {
      await c.platform.scim.replaceUser(platformId, payload);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      platformId = undefined; // deleted on the platform: create it again
    }
  }
  if (!platformId && tombstone) {
    // a soft-deleted user the platform does not hold is not created under its tombstone name: nobody
    // is to sign in with it, and a restore sends the real name, which then creates the user
    await c.state.update(dirId, "user", id, {
      platformId: undefined, hash, status: "deprovisioned", attempts: 0, lastError: undefined, drift: undefined, syncedAt: new Date().toISOString(),
    });
    return "unchanged";
  }
  if (!platformId) {
    try {
      platformId = (await c.platform.scim.createUser(payload)).id;
      outcome = "created";
    } catch (err) {
      // "409 uniqueness": adopt the platform user with the same userName rather than duplicate it, and
      // only when no other directory of this platform account manages it
      if (!isConflict(err)) throw err;
      const existing = await c.platform.scim.findUserByUserName(String(payload.userName));
      if (!existing) throw err;
      await ensureOwned(c, "user", existing.id, String(payload.userName));
      await refuseOtherUsersAccount(c, id, existing.externalId, String(payload.userName));
      await c.platform.scim.replaceUser(existing.id, payload);
      platformId = existing.id;
    }
  }
  const status = payload.active === false ? "deprovisioned" : "synced";
  // The writes after the call are sent together and answered in order (one round trip): Redis runs them
  // in the order sent, so a crash leaves a prefix of them done, as awaiting each in turn would.
  const writes: Array<Promise<unknown>> = [];
  // what this directory created is its own (recorded before its platform id, as before)
  if (outcome === "created") writes.push(recordOwned(c, "user", platformId));
  writes.push(c.state.update(dirId, "user", id, {
    platformId, hash, status,
    attempts: 0, lastError: undefined, drift: undefined, syncedAt: new Date().toISOString(),
  }));
  // memberships that waited for this user's platform id can be applied now, and a deactivation or
  // reactivation takes the user out of or back into its platform groups: the user is marked changed in
  // each of its groups. The groups are read after the state write (the script reads them itself, behind
  // the write): a group that took the user in after `desired` was read, and reconciled before the platform
  // id was written, would otherwise wait for a member nobody tells it about. Only groups with no change
  // pending yet get a reconcile asked for (one that is pending will see this user too), so syncing a user
  // costs no job per group.
  let follow: Promise<string[]> | undefined;
  if (platformId !== st.platformId || st.status !== status) {
    if (st.platformId && platformId !== st.platformId) {
      // a new platform user (re-created after a platform-side delete) is in none of its groups yet: its
      // groups must add it again, so it leaves their applied sets before they reconcile
      await Promise.all(writes);
      const groups = ((await c.users.get(dirId, id))?.groups ?? []).map((g) => g.value);
      for (const g of groups) await c.state.applyMembers(c.state.appliedMembersKey(dirId, g), [], [id]);
      follow = c.state.markMemberChanged(dirId, id, groups);
    } else follow = c.state.markMemberChanged(dirId, id, "*");
    writes.push(follow);
  }
  await Promise.all([...writes, cleared]);
  if (follow) await Promise.all((await follow).map((g) => c.enqueue("group", g)));
  if (payload.active === false && outcome === "updated") return "deactivated";
  return outcome;
}
