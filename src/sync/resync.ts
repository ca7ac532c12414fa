/**
 * Full resync of one directory. It lists the platform side (SCIM users and groups for a workforce
 * directory, embed-tenant groups for an embed one) and compares it with the desired state and the sync
 * state:
 *   - missing: the bridge knows a platform id the platform no longer has → re-created;
 *   - changed: the platform's copy differs from what the bridge applied → re-applied;
 *   - created by the bridge (externalId `<directory>:<id>`, or a tracked embed group) and no longer in the
 *     IdP → deactivated / deleted.
 * Every desired resource is then reconciled (deduplicated jobs, so never twice at once with the normal
 * flow); unchanged ones make no call, so a resync with no drift makes no write call.
 *
 * Progress and the resources still waited for are kept by ResyncStore (src/store/resync-store.ts, keys in
 * resync-keys.ts); each reconcile that settles one of them counts its outcome; the last one marks the resync
 * done. A lock keeps two resyncs of a directory from overlapping.
 */
import { randomUUID } from "node:crypto";
import type { RedisConnection } from "../store/connection";
import { ResyncKeys, ResyncStore, type ResyncProgress, type SyncKind } from "../store";
import type { Outcome, ReconcileContext } from "./context";
import { embedGroupName } from "./mapping/embed-user";
import { managedExternalId, workforceUserPayload } from "./mapping/workforce-user";
import { activeMemberIds } from "./targets/workforce-group";

const LOCK_TTL_S = 6 * 3600;
/** Resources read per round trip, and reconciles enqueued at once, while a resync lists and queues. */
const BATCH = 500;

/** Keys of a directory's resync (built in src/store/resync-keys.ts). */
export function resyncKeys(keyPrefix: string, dir: string): ResyncKeys {
  return new ResyncKeys(keyPrefix, dir);
}

export type { ResyncProgress };

/** Reads a directory's resync progress. */
export function readResync(redis: RedisConnection, keyPrefix: string, dir: string): Promise<ResyncProgress> {
  return new ResyncStore(redis, keyPrefix).read(dir);
}

/** Percent done; a finished resync with nothing to do (total 0) is complete, not at 0% (a failed one is not). */
export function resyncPercent(p: ResyncProgress): number {
  if (p.total) return Math.floor((p.done / p.total) * 100);
  return p.status === "done" && p.phase === "done" ? 100 : 0;
}

/** Counts a settled reconcile toward the running resync, if it waits for that resource. */
export async function settleResync(redis: RedisConnection, keyPrefix: string, dir: string, kind: SyncKind, id: string, outcome: Outcome | "failed"): Promise<void> {
  await new ResyncStore(redis, keyPrefix).settle(dir, `${kind}:${id}`, outcome);
}

/** Fields of the workforce payload compared with the platform's copy (only what the bridge sends). */
function differs(sent: Record<string, unknown>, onPlatform: Record<string, unknown>): boolean {
  for (const [k, v] of Object.entries(sent)) {
    const p = onPlatform[k];
    if (k === "userName") {
      if (String(p ?? "").toLowerCase() !== String(v).toLowerCase()) return true;
    } else if (JSON.stringify(p ?? null) !== JSON.stringify(v ?? null)) {
      return true;
    }
  }
  return false;
}

interface ResyncDeps extends ReconcileContext {
  redis: RedisConnection;
  keyPrefix: string;
}

/** Marks drift and collects orphans on the workforce platform side. Returns orphan resources to reconcile. */
async function workforceDrift(c: ResyncDeps, userIds: string[], groupIds: string[]): Promise<Array<[SyncKind, string]>> {
  const dir = c.dir.id;
  const orphans: Array<[SyncKind, string]> = [];
  const marker = `${dir}:`;
  const platformUsers = new Map<string, Record<string, unknown>>();
  for await (const u of c.platform.scim.iterateUsers()) platformUsers.set(u.id, u as unknown as Record<string, unknown>);
  const desiredUsers = new Set(userIds);
  // in batches: one round trip for the sync states and one for the desired users of BATCH users
  for (let i = 0; i < userIds.length; i += BATCH) {
    const chunk = userIds.slice(i, i + BATCH);
    const states = await c.state.getMany(dir, "user", chunk);
    const desiredById = new Map((await c.users.find(dir, "id", chunk)).map((u) => [u.id, u]));
    for (const [j, id] of chunk.entries()) {
      const st = states[j];
      if (!st.platformId || st.status === "failed") continue;
      const onPlatform = platformUsers.get(st.platformId);
      const desired = desiredById.get(id);
      if (!onPlatform) {
        // the old platform id is dead: forget it and the memberships applied with it, so the user's groups
        // wait for the re-created user (its reconcile asks for them) instead of sending the dead id
        await c.state.update(dir, "user", id, { drift: "missing", platformId: undefined });
        for (const g of desired?.groups ?? []) await c.state.applyMembers(c.state.appliedMembersKey(dir, g.value), [], [id]);
        continue;
      }
      if (desired && differs(workforceUserPayload(dir, desired) as unknown as Record<string, unknown>, onPlatform)) {
        await c.state.update(dir, "user", id, { drift: "changed" });
      }
    }
  }
  for (const u of platformUsers.values()) {
    const ext = typeof u.externalId === "string" ? u.externalId : "";
    const scimId = ext.startsWith(marker) ? ext.slice(marker.length) : undefined;
    if (scimId && !desiredUsers.has(scimId) && u.active !== false) {
      await c.state.update(dir, "user", scimId, { platformId: String(u.id), drift: "changed" });
      orphans.push(["user", scimId]);
    }
  }

  const desiredGroups = new Set(groupIds);
  const platformGroups = new Map<string, { id: string; displayName?: string; externalId?: string; members?: Array<{ value: string }> }>();
  for await (const g of c.platform.scim.iterateGroups()) platformGroups.set(g.id, g);
  for (const id of groupIds) {
    const st = await c.state.get(dir, "group", id);
    if (!st.platformId || st.status === "failed") continue;
    const onPlatform = platformGroups.get(st.platformId);
    if (!onPlatform) { await c.state.update(dir, "group", id, { drift: "missing" }); continue; }
    const desired = await c.groups.get(dir, id, false);
    // the same expectation as the group's reconcile: its active users (a deactivated user left the group)
    const memberIds = await activeMemberIds(c, dir, id);
    const pids = new Set((await c.state.platformIds(dir, "user", memberIds)).filter(Boolean));
    const actual = new Set((onPlatform.members ?? []).map((m) => m.value));
    const sameMembers = pids.size === actual.size && [...pids].every((p) => actual.has(p!));
    if (!sameMembers || (desired && onPlatform.displayName !== desired.body.displayName)) {
      await c.state.update(dir, "group", id, { drift: "changed" });
    }
  }
  for (const g of platformGroups.values()) {
    const scimId = g.externalId?.startsWith(marker) ? g.externalId.slice(marker.length) : undefined;
    if (scimId && !desiredGroups.has(scimId) && g.externalId === managedExternalId(dir, scimId)) {
      await c.state.update(dir, "group", scimId, { platformId: g.id });
      orphans.push(["group", scimId]);
    }
  }
  return orphans;
}

/** Deletes embed-tenant groups the bridge applied and the IdP no longer has (their members left them already). */
async function embedDrift(c: ResyncDeps, groupIds: string[]): Promise<number> {
  const tenant = c.dir.embed!.tenantName;
  const desiredNames = new Set<string>();
  for (const id of groupIds) {
    const g = await c.groups.get(c.dir.id, id, false);
    const name = g ? embedGroupName(String(g.body.displayName), c.dir.embed!) : undefined;
    if (name) desiredNames.add(name);
  }
  const applied = new Set(await c.state.embedGroups(c.dir.id));
  let deleted = 0;
  for await (const g of c.platform.embed.iterateGroups(tenant)) {
    if (applied.has(g.name) && !desiredNames.has(g.name)) {
      await c.platform.embed.deleteGroup(tenant, g.id);
      await c.state.untrackEmbedGroup(c.dir.id, g.name);
      deleted++;
    }
  }
  return deleted;
}

/**
 * Runs the listing phase of a full resync and queues every resource; the reconciles finish it.
 * Returns false when another resync of the directory is still running.
 */
export async function startResync(c: ResyncDeps, requestedBy: string): Promise<boolean> {
  const dir = c.dir.id;
  const store = new ResyncStore(c.redis, c.keyPrefix);
  const id = randomUUID();
  if (!(await store.lock(dir, id, LOCK_TTL_S))) return false;
  try {
    await store.begin(dir, id, requestedBy);
    const userIds = await c.users.ids(dir);
    const groupIds = await c.groups.ids(dir);
    const work: Array<[SyncKind, string]> = [...userIds.map((u) => ["user", u] as [SyncKind, string]), ...groupIds.map((g) => ["group", g] as [SyncKind, string])];
    if (c.dir.target === "workforce") {
      work.push(...await workforceDrift(c, userIds, groupIds));
    } else {
      const deleted = await embedDrift(c, groupIds);
      if (deleted) await store.count(dir, "deleted", deleted);
      // users the bridge provisioned and the IdP no longer has are deprovisioned (if not already)
      for (const uid of await c.state.known(dir, "user")) if (!userIds.includes(uid)) work.push(["user", uid]);
    }
    const unique = [...new Map(work.map((w) => [`${w[0]}:${w[1]}`, w])).values()];
    if (unique.length === 0) {
      await store.finish(dir);
      return true;
    }
    await store.waitFor(dir, unique.map(([kind, rid]) => `${kind}:${rid}`));
    // enqueued BATCH at a time (one Redis pipeline each) rather than one round trip per resource
    for (let i = 0; i < unique.length; i += BATCH) await Promise.all(unique.slice(i, i + BATCH).map(([kind, rid]) => c.enqueue(kind, rid)));
    return true;
  } catch (err) {
    await store.fail(dir, (err as Error).message);
    throw err;
  }
}
