/**
 * Workforce target, groups: the desired group becomes a platform group (created, or adopted by
 * displayName), renamed when its name changes, deleted when the IdP deletes it. Memberships are applied
 * as deltas in batches (the client's `memberBatchSize`) against the set already applied, and only for
 * users that exist on the platform: a member whose user has no platform id yet is left pending, and the
 * user's own reconcile asks for this group again once it has one. A deactivated user (`active=false`) is
 * not a member on the platform (DESIGN §2: "deactivated on the platform … removed from groups"); the
 * user's reconcile asks for its groups again when it is deactivated or reactivated.
 */
import type { ReconcileContext, Outcome } from "../context";
import { isConflict, isNotFound } from "../context";
import { payloadHash } from "../mapping/payload-hash";
import { managedExternalId } from "../mapping/workforce-user";
import { claimPlatformName, releasePlatformName } from "../name-conflicts";
import { ensureOwned, forgetOwned, recordOwned } from "../ownership-guard";

async function removePlatformGroup(c: ReconcileContext, id: string): Promise<Outcome> {
  const st = await c.state.get(c.dir.id, "group", id);
  if (st.platformId) {
    await ensureOwned(c, "group", st.platformId);
    await c.platform.scim.deleteGroup(st.platformId);
    await forgetOwned(c, "group", st.platformId);
  }
  await c.state.remove(c.dir.id, "group", id);
  await releasePlatformName(c, "g", id);
  return st.platformId ? "deleted" : "unchanged";
}

/** Creates or adopts the platform group; returns its id. */
async function ensureGroup(c: ReconcileContext, displayName: string, externalId: string): Promise<{ id: string; created: boolean }> {
  const existing = await c.platform.scim.findGroupByDisplayName(displayName, { excludeMembers: true });
  // adopted only when no other directory of this platform account manages it
  if (existing) { await ensureOwned(c, "group", existing.id, displayName); return { id: existing.id, created: false }; }
  try {
    const id = (await c.platform.scim.createGroup({ displayName, externalId })).id;
    await recordOwned(c, "group", id);
    return { id, created: true };
  } catch (err) {
    if (!isConflict(err)) throw err;
    const again = await c.platform.scim.findGroupByDisplayName(displayName, { excludeMembers: true });
    if (!again) throw err;
    await ensureOwned(c, "group", again.id, displayName);
    return { id: again.id, created: false };
  }
}

/** The members a group should have on the platform: its active users (SCIM ids), in store order. */
export async function activeMemberIds(c: Pick<ReconcileContext, "users" | "groups">, dirId: string, groupId: string): Promise<string[]> {
  return (await c.users.find(dirId, "id", await c.groups.memberValues(dirId, groupId)))
    .filter((u) => u.body.active !== false).map((u) => u.id);
}

/** Reconciles one group of a workforce directory. */
export async function reconcileWorkforceGroup(c: ReconcileContext, id: string): Promise<Outcome> {
  const dirId = c.dir.id;
  const desired = await c.groups.get(dirId, id, false);
  if (!desired) return removePlatformGroup(c, id);

  const st = await c.state.get(dirId, "group", id);
  const displayName = String(desired.body.displayName);
  // another IdP group of this directory with the same platform name is never merged into this one
  const claimed = await claimPlatformName(c, "g", id, displayName);
  const hash = payloadHash({ displayName });
  let outcome: Outcome = "unchanged";
  let platformId = st.drift === "missing" ? undefined : st.platformId;
  const appliedKey = c.state.appliedMembersKey(dirId, id);
  if (platformId) await ensureOwned(c, "group", platformId, displayName);

  if (platformId && (st.hash !== hash || st.drift === "changed")) {
    try {
      await c.platform.scim.renameGroup(platformId, displayName);
      outcome = "updated";
    } catch (err) {
      if (!isNotFound(err)) throw err;
      platformId = undefined;
    }
  }
  let applied: Set<string>;
  if (!platformId) {
    const made = await ensureGroup(c, displayName, managedExternalId(dirId, id));
    platformId = made.id;
    outcome = made.created ? "created" : "updated";
    await c.state.redisDel(appliedKey);
    applied = new Set();
  } else {
    applied = new Set(await c.state.members(appliedKey));
  }

  // memberships: active users only (the platform's groups hold users), as deltas against what is applied
  const desiredMembers = await activeMemberIds(c, dirId, id);
  const desiredSet = new Set(desiredMembers);
  let toAdd = desiredMembers.filter((m) => !applied.has(m));
  let toRemove = [...applied].filter((m) => !desiredSet.has(m));
  let onPlatformNow: string[] | undefined;
  let ready: string[] = [];
  let removePids: string[] = [];
  try {
    if (st.drift === "changed" && platformId) {
      // a resync saw the platform's members differ, or a delta failed half-way: diff against the platform itself
      const onPlatform = new Set((await c.platform.scim.getGroup(platformId))?.members?.map((m) => m.value) ?? []);
      const pids = await c.state.platformIds(dirId, "user", desiredMembers);
      toAdd = desiredMembers.filter((m, i) => pids[i] && !onPlatform.has(pids[i]!));
      const desiredPids = new Set(pids.filter(Boolean));
      const extra = [...onPlatform].filter((p) => !desiredPids.has(p));
      if (extra.length) await c.platform.scim.removeMembers(platformId, extra);
      if (extra.length) outcome = outcome === "unchanged" ? "updated" : outcome;
      toRemove = [];
      onPlatformNow = desiredMembers.filter((_, i) => pids[i]);
    }
    const addPids = await c.state.platformIds(dirId, "user", toAdd);
    ready = toAdd.filter((_, i) => addPids[i]);
    removePids = (await c.state.platformIds(dirId, "user", toRemove)).filter((p): p is string => !!p);
    if (ready.length) await c.platform.scim.addMembers(platformId, addPids.filter((p): p is string => !!p));
    if (removePids.length) await c.platform.scim.removeMembers(platformId, removePids);
  } catch (err) {
    // the delta may be half applied (the adds went through and the removes did not, or one batch of
    // several): the applied set no longer says what the platform holds, so the next run diffs against it
    await c.state.update(dirId, "group", id, { drift: "changed" });
    throw err;
  }
  if (onPlatformNow) {
    // after a diff against the platform, what is applied is what the platform now holds
    await c.state.redisDel(appliedKey);
    await c.state.applyMembers(appliedKey, onPlatformNow, []);
  } else {
    await c.state.applyMembers(appliedKey, ready, toRemove);
  }
  if ((ready.length || removePids.length) && outcome === "unchanged") outcome = "updated";

  await c.state.update(dirId, "group", id, {
    platformId, hash, status: "synced", attempts: 0, lastError: undefined, drift: undefined, syncedAt: new Date().toISOString(),
  });
  await claimed.settle();
  return outcome;
}
