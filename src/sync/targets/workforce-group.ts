/**
 * Workforce target, groups: the desired group becomes a platform group (created first; on 409
 * `uniqueness` the platform group of that displayName is looked up once and adopted), renamed when its name changes, deleted when the IdP deletes it. Memberships are applied
 * as deltas in batches (the client's `memberBatchSize`) against the set already applied, and only for
 * users that exist on the platform: a member whose user has no platform id yet is left pending, and the
 * user's own reconcile asks for this group again once it has one. A deactivated user (`active=false`) is
 * not a member on the platform (DESIGN §2: "deactivated on the platform … removed from groups"); the
 * user's reconcile asks for its groups again when it is deactivated or reactivated.
 */
import type { SyncRecord } from "../state/sync-state";
import type { ReconcileContext, Outcome } from "../context";
import { WaitError, isConflict, isNotFound } from "../context";
import { payloadHash } from "../mapping/payload-hash";
import { managedExternalId } from "../mapping/workforce-user";
import { claimPlatformName, releasePlatformName } from "../ownership/name-conflicts";
import { ensureOwned, forgetOwned, recordOwned } from "../ownership/ownership-guard";

async function removePlatformGroup(c: ReconcileContext, id: string, st: SyncRecord): Promise<Outcome> {
  if (st.platformId) {
    await ensureOwned(c, "group", st.platformId);
    await c.platform.scim.deleteGroup(st.platformId);
    await forgetOwned(c, "group", st.platformId);
  }
  await c.state.remove(c.dir.id, "group", id);
  await releasePlatformName(c, "g", id);
  return st.platformId ? "deleted" : "unchanged";
}

/** Creates the platform group, or adopts the one of that displayName on 409; returns its id. */
async function ensureGroup(c: ReconcileContext, displayName: string, externalId: string): Promise<{ id: string; created: boolean }> {
  try {
    const id = (await c.platform.scim.createGroup({ displayName, externalId })).id;
    await recordOwned(c, "group", id);
    return { id, created: true };
  } catch (err) {
    if (!isConflict(err)) throw err;
    const existing = await c.platform.scim.findGroupByDisplayName(displayName, { excludeMembers: true });
    if (!existing) throw err;
    // adopted only when no other directory of this platform account manages it
    await ensureOwned(c, "group", existing.id, displayName);
    return { id: existing.id, created: false };
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
  // both reads in one round trip, as the user reconcile makes them (its members are not read here)
  const [desired, st] = await Promise.all([c.groups.get(dirId, id, false), c.state.get(dirId, "group", id)]);
  if (!desired) return removePlatformGroup(c, id, st);

  const displayName = String(desired.body.displayName);
  const hash = payloadHash({ displayName });
  // A run that finds the group as its last run left it has nothing to do: the platform group carries this
  // name (same hash, no drift) and no member changed since (none waits in the changed members; one marked
  // after this look finds them empty and asks for a reconcile of its own, markMembersChanged-5.lua). With
  // several workers this is a pushed group's second job: the IdP creates the group and then PATCHes its
  // members, and the create's job, already running on another worker, applied both. Its name claim, ownership claim,
  // delta, settle and state write were five scripts for nothing; the look costs one round trip more.
  if (st.platformId && st.status === "synced" && !st.drift && st.hash === hash && !(await c.state.hasChangedMembers(dirId, id))) return "unchanged";
  // another IdP group of this directory with the same platform name is never merged into this one
  const claimed = await claimPlatformName(c, "g", id, displayName);
  let outcome: Outcome = "unchanged";
  let platformId = st.drift === "missing" ? undefined : st.platformId;
  if (platformId) await ensureOwned(c, "group", platformId, displayName);

  // the platform group has this displayName once it is renamed or made with it: a retry does not rename again
  let named = false;
  if (platformId && (st.hash !== hash || st.drift === "changed")) {
    try {
      await c.platform.scim.renameGroup(platformId, displayName);
      outcome = "updated";
      named = true;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      platformId = undefined;
    }
  }
  // a new (or adopted, or re-created) platform group holds none of what was applied to the old one
  let fresh = false;
  if (!platformId) {
    const made = await ensureGroup(c, displayName, managedExternalId(dirId, id));
    platformId = made.id;
    outcome = made.created ? "created" : "updated";
    fresh = true;
    named = made.created;
  }

  // memberships: the delta computed in Redis from the members that changed since the last reconcile
  // (every member for a fresh group or a diff against the platform after drift)
  const againstPlatform = (st.drift === "changed" || st.drift === "members") && !fresh;
  const delta = await c.state.memberDelta(dirId, id, fresh || againstPlatform);
  let waiting: number;
  let held = 0;
  try {
    if (againstPlatform) {
      // a resync saw the platform's members differ, or a delta failed half-way: diff against the platform itself
      const onPlatform = new Set((await c.platform.scim.getGroup(platformId))?.members?.map((m) => m.value) ?? []);
      const should = new Set(delta.should.map((m) => m.pid));
      const add = delta.should.filter((m) => !onPlatform.has(m.pid)).map((m) => m.pid);
      const extra = [...onPlatform].filter((p) => !should.has(p));
      if (add.length) await c.platform.scim.addMembers(platformId, add);
      if (extra.length) await c.platform.scim.removeMembers(platformId, extra);
      if (add.length || extra.length) outcome = outcome === "unchanged" ? "updated" : outcome;
      // after a diff against the platform, what is applied is what the platform now holds
      waiting = await c.state.settleMembers(dirId, id, { seen: delta.seen, scores: delta.scores, add: delta.should.map((m) => m.id), remove: [] }, true);
    } else {
      // a new platform group gets every member that should be, an existing one the delta
      const { now, later } = fullBatches(fresh ? delta.should : delta.add, delta.unready.length, c.dir.platform.memberBatchSize);
      const removes = fresh ? [] : delta.remove;
      const removePids = removes.map((m) => m.pid).filter((p): p is string => !!p);
      if (now.length) await c.platform.scim.addMembers(platformId, now.map((m) => m.pid));
      if (removePids.length) await c.platform.scim.removeMembers(platformId, removePids);
      if ((now.length || removePids.length) && outcome === "unchanged") outcome = "updated";
      // what is held back stays marked changed, with the members whose users are still syncing
      // ("*", a wholesale member change's one mark, stays too: the adds held back were found through it)
      const kept = new Set([...later.map((m) => m.id), ...(later.length ? [...delta.unready, "*"] : [])]);
      const settle = delta.seen.map((m, i) => [m, delta.scores[i]] as const).filter(([m]) => !kept.has(m));
      waiting = await c.state.settleMembers(dirId, id, {
        seen: settle.map(([m]) => m), scores: settle.map(([, s]) => s), add: now.map((m) => m.id), remove: removes.map((m) => m.id),
      }, fresh);
      held = later.length;
    }
  } catch (err) {
    // the delta may be half applied (the adds went through and the removes did not, or one batch of
    // several): the applied set no longer says what the platform holds, so the next run diffs members
    // against it. What is done stays done: the name (when this run made or renamed the group) is not
    // applied again, so each retry makes only the calls still needed (fewer calls, fewer chances to fail).
    const nameDone = named || (st.hash === hash && st.drift !== "changed");
    await c.state.update(dirId, "group", id, { platformId, drift: nameDone ? "members" : "changed", ...(named ? { hash } : {}) });
    throw err;
  }

  await c.state.update(dirId, "group", id, {
    platformId, hash, status: "synced", attempts: 0, lastError: undefined, drift: undefined, syncedAt: new Date().toISOString(),
  });
  await claimed.settle();
  // adds held back for a full batch: this reconcile runs again shortly (no attempt spent)
  if (held) throw new WaitError(`${held} membership(s) held back until ${delta.unready.length} member(s) finish their first sync`, 500);
  // members that changed while this ran (and whose marking asked for no reconcile, one was coming): one more run
  if (waiting > 0) await c.enqueue("group", id);
  return outcome;
}

/**
 * While some members' users are still being created, the adds that would make a partial batch wait for
 * them: memberships go out in full batches of `memberBatchSize`, so the platform gets as few PATCH calls
 * as the workload needs. With no user in flight, all go now.
 */
function fullBatches<T>(adds: T[], inFlight: number, batch: number): { now: T[]; later: T[] } {
  if (!inFlight || adds.length % batch === 0) return { now: adds, later: [] };
  const keep = adds.length - (adds.length % batch);
  return { now: adds.slice(0, keep), later: adds.slice(keep) };
}
