/**
 * The plan of a full resync, computed by reading only (the platform's lists, the desired state, the sync
 * state): what it would create, update and leave alone, the drift marks it would write, and what it would
 * deprovision. `resync.ts` applies a plan; a dry run (`resync --dry-run`) only reports it.
 *
 * Deprovisions are what the bridge created and the IdP no longer has:
 *   - workforce: active platform users / groups whose externalId is `<directory>:<scim id>` and whose SCIM
 *     id is not in the store (users deactivated or deleted, groups deleted);
 *   - embed: users with sync state the store no longer has (not yet deprovisioned), and embed-tenant
 *     groups the bridge applied whose name no desired group maps to.
 */
import type { SyncKind, SyncRecord } from "../state/sync-state";
import type { PlanItem } from "./resync-store";
import type { ReconcileContext } from "../context";
import { embedGroupName } from "../mapping/embed-user";
import { payloadHash } from "../mapping/payload-hash";
import { isEntraTombstone } from "../mapping/entra-tombstone";
import { managedExternalId, workforceUserPayload } from "../mapping/workforce-user";
import { activeMemberIds } from "../targets/workforce-group";
import { notOwnedByOther } from "../ownership/ownership-guard";
import type { RedisConnection } from "../../store/connection";

/** Resources read per round trip while a plan is computed. */
const BATCH = 500;

/** One resource of a plan (stored as such in a held resync and a dry run's report: src/sync/resync/resync-store.ts). */
export type { PlanItem } from "./resync-store";

/** A sync-state write the resync makes before it queues (drift found on the platform). */
export interface DriftMark {
  kind: SyncKind;
  id: string;
  fields: Partial<SyncRecord>;
  /** Groups whose applied-member sets must forget this user (its platform id is dead). */
  leaveGroups?: string[];
}

export interface ResyncPlan {
  /** Desired resources to reconcile: every one but the users in `skipped`. */
  work: Array<[SyncKind, string]>;
  /**
   * Workforce users the plan found in step (applied payload = desired payload = the platform's copy, at rest, no
   * drift, nothing the deprovision brake knows of): their reconcile would make no call and write nothing, so
   * none is queued; the resync counts them as unchanged.
   */
  skipped: Set<string>;
  marks: DriftMark[];
  create: PlanItem[];
  update: PlanItem[];
  unchanged: number;
  deprovision: PlanItem[];
  /** Users and groups the directory manages on the platform (desired with a platform side, plus deprovisions). */
  managed: number;
  /** Users in the directory's store. */
  storeUsers: number;
}

export interface PlanDeps extends ReconcileContext {
  redis: RedisConnection;
  keyPrefix: string;
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

const atRest = (st: SyncRecord) => st.status === "synced" || st.status === "deprovisioned";

async function workforcePlan(c: PlanDeps, plan: ResyncPlan, userIds: string[], groupIds: string[]): Promise<void> {
  const dir = c.dir.id;
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
      const desired = desiredById.get(id);
      const name = desired ? String(desired.body.userName) : undefined;
      // an Entra tombstone the platform never held stays off it (workforce-user.ts)
      if (!st.platformId && st.status === "deprovisioned" && desired && isEntraTombstone(desired.body)) continue;
      if (!st.platformId || st.status === "failed") {
        (st.platformId ? plan.update : plan.create).push({ kind: "user", id, platformId: st.platformId, name });
        continue;
      }
      plan.managed++;
      const onPlatform = platformUsers.get(st.platformId);
      if (!onPlatform) {
        // the old platform id is dead: forget it and the memberships applied with it, so the user's groups
        // wait for the re-created user (its reconcile asks for them) instead of sending the dead id
        plan.marks.push({ kind: "user", id, fields: { drift: "missing", platformId: undefined }, leaveGroups: (desired?.groups ?? []).map((g) => g.value) });
        plan.create.push({ kind: "user", id, name });
        continue;
      }
      const payload = desired ? workforceUserPayload(dir, desired) : undefined;
      // a tombstone's platform user keeps its real name: the name is no drift
      if (payload && isEntraTombstone(desired!.body)) delete (payload as { userName?: unknown }).userName;
      if (payload && differs(payload as unknown as Record<string, unknown>, onPlatform)) {
        plan.marks.push({ kind: "user", id, fields: { drift: "changed" } });
        plan.update.push({ kind: "user", id, platformId: st.platformId, name });
      } else if (payload && (st.hash !== payloadHash(payload) || !atRest(st) || st.drift)) {
        plan.update.push({ kind: "user", id, platformId: st.platformId, name });
      } else {
        plan.unchanged++;
        if (payload && !st.brake) plan.skipped.add(id);
      }
    }
  }
  for (const u of platformUsers.values()) {
    const ext = typeof u.externalId === "string" ? u.externalId : "";
    const scimId = ext.startsWith(marker) ? ext.slice(marker.length) : undefined;
    if (scimId && !desiredUsers.has(scimId) && u.active !== false) {
      plan.deprovision.push({ kind: "user", id: scimId, platformId: String(u.id), name: String(u.userName ?? "") });
    }
  }

  const desiredGroups = new Set(groupIds);
  const platformGroups = new Map<string, { id: string; displayName?: string; externalId?: string; members?: Array<{ value: string }> }>();
  for await (const g of c.platform.scim.iterateGroups()) platformGroups.set(g.id, g);
  for (const id of groupIds) {
    const st = await c.state.get(dir, "group", id);
    const desired = await c.groups.get(dir, id, false);
    const name = desired ? String(desired.body.displayName) : undefined;
    if (!st.platformId || st.status === "failed") {
      (st.platformId ? plan.update : plan.create).push({ kind: "group", id, platformId: st.platformId, name });
      continue;
    }
    plan.managed++;
    const onPlatform = platformGroups.get(st.platformId);
    if (!onPlatform) {
      plan.marks.push({ kind: "group", id, fields: { drift: "missing" } });
      plan.create.push({ kind: "group", id, name });
      continue;
    }
    // the same expectation as the group's reconcile: its active users (a deactivated user left the group)
    const memberIds = await activeMemberIds(c, dir, id);
    const pids = new Set((await c.state.platformIds(dir, "user", memberIds)).filter(Boolean));
    const actual = new Set((onPlatform.members ?? []).map((m) => m.value));
    const sameMembers = pids.size === actual.size && [...pids].every((p) => actual.has(p!));
    if (!sameMembers || (desired && onPlatform.displayName !== desired.body.displayName)) {
      plan.marks.push({ kind: "group", id, fields: { drift: "changed" } });
      plan.update.push({ kind: "group", id, platformId: st.platformId, name });
    } else if (st.hash !== payloadHash({ displayName: name }) || !atRest(st) || st.drift) {
      plan.update.push({ kind: "group", id, platformId: st.platformId, name });
    } else {
      plan.unchanged++;
    }
  }
  for (const g of platformGroups.values()) {
    const scimId = g.externalId?.startsWith(marker) ? g.externalId.slice(marker.length) : undefined;
    if (scimId && !desiredGroups.has(scimId) && g.externalId === managedExternalId(dir, scimId)) {
      plan.deprovision.push({ kind: "group", id: scimId, platformId: g.id, name: g.displayName });
    }
  }
}

async function embedPlan(c: PlanDeps, plan: ResyncPlan, userIds: string[], groupIds: string[]): Promise<void> {
  const dir = c.dir.id;
  const tenant = c.dir.embed!.tenantName;
  const classify = (kind: SyncKind, id: string, st: SyncRecord, onPlatform: boolean, name?: string) => {
    if (!onPlatform) plan.create.push({ kind, id, name });
    else if (!atRest(st) || st.drift) { plan.managed++; plan.update.push({ kind, id, name }); }
    else { plan.managed++; plan.unchanged++; }
  };
  const desiredNames = new Set<string>();
  for (const id of groupIds) {
    const g = await c.groups.get(dir, id, false);
    const name = g ? embedGroupName(String(g.body.displayName), c.dir.embed!) : undefined;
    if (name) desiredNames.add(name);
    const st = await c.state.get(dir, "group", id);
    classify("group", id, st, !!st.appliedName, name ?? (g ? String(g.body.displayName) : undefined));
  }
  for (let i = 0; i < userIds.length; i += BATCH) {
    const chunk = userIds.slice(i, i + BATCH);
    const states = await c.state.getMany(dir, "user", chunk);
    const desiredById = new Map((await c.users.find(dir, "id", chunk)).map((u) => [u.id, u]));
    for (const [j, id] of chunk.entries()) classify("user", id, states[j], !!states[j].externalId, desiredById.get(id)?.body.userName as string | undefined);
  }
  // users the bridge provisioned and the IdP no longer has are deprovisioned (if not already)
  const desired = new Set(userIds);
  for (const uid of await c.state.known(dir, "user")) {
    if (desired.has(uid)) continue;
    const st = await c.state.get(dir, "user", uid);
    if (st.status === "deprovisioned" || !st.externalId) plan.work.push(["user", uid]);
    else plan.deprovision.push({ kind: "user", id: uid, name: st.externalId });
  }
  const applied = new Set(await c.state.embedGroups(dir));
  for await (const g of c.platform.embed.iterateGroups(tenant)) {
    if (applied.has(g.name) && !desiredNames.has(g.name)) plan.deprovision.push({ kind: "embed-group", id: g.name, platformId: String(g.id), name: g.name });
  }
}

/** The deprovisions whose platform resource no other directory of the account manages (ownership). */
async function ownDeprovisions(c: PlanDeps, items: PlanItem[]): Promise<PlanItem[]> {
  const out: PlanItem[] = [];
  for (const kind of ["user", "group"] as const) {
    const of = items.filter((it) => (it.kind === "embed-group" ? "group" : it.kind) === kind);
    const resources = of.map((it) => (c.dir.target === "workforce" ? it.platformId : it.kind === "user" ? it.name : it.id) ?? "");
    const ok = await notOwnedByOther(c, kind, resources);
    out.push(...of.filter((_, i) => ok[i]));
  }
  return out;
}

/** Computes the plan of a full resync of `c.dir`; reads only. */
export async function computePlan(c: PlanDeps): Promise<ResyncPlan> {
  const dir = c.dir.id;
  const userIds = await c.users.ids(dir);
  const groupIds = await c.groups.ids(dir);
  const plan: ResyncPlan = {
    work: [...userIds.map((u) => ["user", u] as [SyncKind, string]), ...groupIds.map((g) => ["group", g] as [SyncKind, string])],
    skipped: new Set(), marks: [], create: [], update: [], unchanged: 0, deprovision: [], managed: 0, storeUsers: userIds.length,
  };
  if (c.dir.target === "workforce") await workforcePlan(c, plan, userIds, groupIds);
  else await embedPlan(c, plan, userIds, groupIds);
  if (plan.skipped.size) plan.work = plan.work.filter(([kind, id]) => kind !== "user" || !plan.skipped.has(id));
  plan.deprovision = await ownDeprovisions(c, plan.deprovision);
  plan.managed += plan.deprovision.length;
  return plan;
}

/**
 * Why a plan must wait for an operator before it deprovisions, or undefined when it may go on:
 * Entra's provisioning has "accidental deletions prevention" with a threshold, and the bridge holds back
 * more: more than `count`, more than `percent` % of what the directory manages, or anything at all
 * while the directory's store holds no user (an empty, restored or re-prefixed Redis).
 */
export function holdReason(plan: ResyncPlan, limit: { count: number; percent: number }): string | undefined {
  const n = plan.deprovision.length;
  if (n === 0) return undefined;
  if (plan.storeUsers === 0) return `would deprovision ${n} while the directory's store holds no user`;
  if (n > limit.count) return `would deprovision ${n}, more than safety.maxDeprovisionPerResync.count (${limit.count})`;
  const pct = plan.managed ? (n * 100) / plan.managed : 100;
  if (pct > limit.percent) {
    return `would deprovision ${n} of ${plan.managed} managed (${Math.round(pct * 10) / 10}%), more than safety.maxDeprovisionPerResync.percent (${limit.percent}%)`;
  }
  return undefined;
}

/**
 * The hold of a directory's deprovision run when it is deleted with `platform=deprovision`: always, whatever
 * the counts, so one command never wipes a company's platform side without a confirmation.
 */
export function deleteHoldReason(dir: string, plan: ResyncPlan): string {
  return `deleting directory ${dir} with platform=deprovision: ${plan.deprovision.length} platform user(s) and group(s) the bridge manages for it would be deprovisioned, then every key of the directory purged`;
}
