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
 * Progress lives in `<P>resync` (HASH: id, status, phase, total, done, created, updated, deactivated,
 * deleted, unchanged, failed, startedAt, finishedAt, requestedBy, error); the resources it still waits for in
 * `<P>resync:pending` (SET of "<kind>:<id>"). Each reconcile that settles one of them counts its outcome;
 * the last one marks the resync done. `<P>resync:lock` keeps two resyncs of a directory from overlapping.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { DirectoryKeys, type SyncKind } from "../store";
import type { Outcome, ReconcileContext } from "./context";
import { embedGroupName } from "./mapping/embed-user";
import { managedExternalId, workforceUserPayload } from "./mapping/workforce-user";
import { activeMemberIds } from "./targets/workforce-group";

const LOCK_TTL_S = 6 * 3600;
/** Resources read per round trip, and reconciles enqueued at once, while a resync lists and queues. */
const BATCH = 500;

/*
  KEYS[1] pending set, KEYS[2] progress hash, KEYS[3] lock; ARGV[1] "<kind>:<id>", ARGV[2] outcome field, ARGV[3] now
  Counts one settled resource if the running resync waits for it; finishes the resync on the last one.
*/
const SETTLE = `
if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], 'done', 1)
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
if redis.call('SCARD', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[2], 'status', 'done', 'phase', 'done', 'finishedAt', ARGV[3])
  redis.call('DEL', KEYS[3])
end
return 1`;

/** Keys of a directory's resync. */
export function resyncKeys(keyPrefix: string, dir: string): { progress: string; pending: string; lock: string } {
  const p = new DirectoryKeys(keyPrefix, dir).prefix;
  return { progress: `${p}resync`, pending: `${p}resync:pending`, lock: `${p}resync:lock` };
}

/** Progress of the latest resync of a directory, as stored (numbers parsed). */
export interface ResyncProgress {
  id?: string;
  status?: "running" | "done";
  phase?: string;
  total: number;
  done: number;
  created: number;
  updated: number;
  deactivated: number;
  deleted: number;
  unchanged: number;
  failed: number;
  startedAt?: string;
  finishedAt?: string;
  requestedBy?: string;
  /** Why the listing phase failed (phase "failed"). */
  error?: string;
}

/** Reads a directory's resync progress. */
export async function readResync(redis: Redis, keyPrefix: string, dir: string): Promise<ResyncProgress> {
  const h = await redis.hgetall(resyncKeys(keyPrefix, dir).progress);
  const n = (k: string) => Number(h[k] ?? 0);
  return {
    id: h.id, status: h.status as ResyncProgress["status"], phase: h.phase, total: n("total"), done: n("done"), created: n("created"),
    updated: n("updated"), deactivated: n("deactivated"), deleted: n("deleted"), unchanged: n("unchanged"), failed: n("failed"),
    startedAt: h.startedAt, finishedAt: h.finishedAt, requestedBy: h.requestedBy, ...(h.error ? { error: h.error } : {}),
  };
}

/** Percent done; a finished resync with nothing to do (total 0) is complete, not at 0% (a failed one is not). */
export function resyncPercent(p: ResyncProgress): number {
  if (p.total) return Math.floor((p.done / p.total) * 100);
  return p.status === "done" && p.phase === "done" ? 100 : 0;
}

/** Counts a settled reconcile toward the running resync, if it waits for that resource. */
export async function settleResync(redis: Redis, keyPrefix: string, dir: string, kind: SyncKind, id: string, outcome: Outcome | "failed"): Promise<void> {
  const k = resyncKeys(keyPrefix, dir);
  await redis.eval(SETTLE, 3, k.pending, k.progress, k.lock, `${kind}:${id}`, outcome, new Date().toISOString());
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
  redis: Redis;
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
  const applied = new Set(await c.redis.smembers(`${new DirectoryKeys(c.keyPrefix, c.dir.id).prefix}s:embed-groups`));
  let deleted = 0;
  for await (const g of c.platform.embed.iterateGroups(tenant)) {
    if (applied.has(g.name) && !desiredNames.has(g.name)) {
      await c.platform.embed.deleteGroup(tenant, g.id);
      await c.redis.srem(`${new DirectoryKeys(c.keyPrefix, c.dir.id).prefix}s:embed-groups`, g.name);
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
  const k = resyncKeys(c.keyPrefix, dir);
  const id = randomUUID();
  if (!(await c.redis.set(k.lock, id, "EX", LOCK_TTL_S, "NX"))) return false;
  try {
    await c.redis.multi().del(k.progress, k.pending)
      .hset(k.progress, "id", id, "status", "running", "phase", "listing", "total", 0, "done", 0, "created", 0, "updated", 0,
        "deactivated", 0, "deleted", 0, "unchanged", 0, "failed", 0, "startedAt", new Date().toISOString(), "requestedBy", requestedBy)
      .exec();
    const userIds = await c.users.ids(dir);
    const groupIds = await c.groups.ids(dir);
    const work: Array<[SyncKind, string]> = [...userIds.map((u) => ["user", u] as [SyncKind, string]), ...groupIds.map((g) => ["group", g] as [SyncKind, string])];
    if (c.dir.target === "workforce") {
      work.push(...await workforceDrift(c, userIds, groupIds));
    } else {
      const deleted = await embedDrift(c, groupIds);
      if (deleted) await c.redis.hincrby(k.progress, "deleted", deleted);
      // users the bridge provisioned and the IdP no longer has are deprovisioned (if not already)
      // (a Set: a list scan per user made the resync of a large embed directory quadratic)
      const desired = new Set(userIds);
      for (const uid of await c.state.known(dir, "user")) if (!desired.has(uid)) work.push(["user", uid]);
    }
    const unique = [...new Map(work.map((w) => [`${w[0]}:${w[1]}`, w])).values()];
    if (unique.length === 0) {
      await c.redis.multi().hset(k.progress, "status", "done", "phase", "done", "finishedAt", new Date().toISOString()).del(k.lock).exec();
      return true;
    }
    for (let i = 0; i < unique.length; i += 1000) {
      await c.redis.sadd(k.pending, ...unique.slice(i, i + 1000).map(([kind, rid]) => `${kind}:${rid}`));
    }
    await c.redis.hset(k.progress, "total", unique.length, "phase", "reconciling");
    // enqueued BATCH at a time (one Redis pipeline each) rather than one round trip per resource
    for (let i = 0; i < unique.length; i += BATCH) await Promise.all(unique.slice(i, i + BATCH).map(([kind, rid]) => c.enqueue(kind, rid)));
    return true;
  } catch (err) {
    await c.redis.multi().hset(k.progress, "status", "done", "phase", "failed", "finishedAt", new Date().toISOString(), "error", (err as Error).message).del(k.lock, k.pending).exec();
    throw err;
  }
}
