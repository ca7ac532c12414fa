/**
 * Embed target, groups. An IdP group is an embed-tenant group, upserted by its members' sessions
 * (`groupDefinitions`), so this reconcile makes no call while the group lives: it asks for a reconcile
 * of every member that joined or left, or of every member when the group's name changed.
 * "A group deleted in the IdP is removed from its members, then deleted": when a group is deleted (or
 * renamed, for its old name), it waits until no member still carries the old name, then deletes that
 * embed-tenant group with `DELETE /v1/embed-tenants/{name}/groups/{id}` (id found by the cursor list).
 */
import type { ReconcileContext, Outcome } from "../context";
import { WaitError } from "../context";
import { embedGroupName } from "../mapping/embed-user";
import { claimPlatformName, releasePlatformName } from "../ownership/name-conflicts";
import { ensureOwned, forgetOwned } from "../ownership/ownership-guard";

/** Members (SCIM user ids) whose applied groups still contain `name`. */
async function stillCarrying(c: ReconcileContext, userIds: string[], name: string): Promise<string[]> {
  const out: string[] = [];
  for (const uid of userIds) {
    const st = await c.state.get(c.dir.id, "user", uid);
    const applied = st.appliedGroups ? (JSON.parse(st.appliedGroups) as string[]) : [];
    if (applied.includes(name)) out.push(uid);
  }
  return out;
}

/** Reconciles one group of an embed directory. */
export async function reconcileEmbedGroup(c: ReconcileContext, id: string): Promise<Outcome> {
  const dirId = c.dir.id;
  const tenant = c.dir.embed!.tenantName;
  const desired = await c.groups.get(dirId, id, false);
  const st = await c.state.get(dirId, "group", id);
  const appliedKey = c.state.appliedMembersKey(dirId, id);
  // the SCIM writes mark changed members for workforce group reconciles; an embed group diffs itself
  await c.state.redisDel(...c.state.changedMembersKeys(dirId, id));
  const applied = await c.state.members(appliedKey);
  const name = desired ? embedGroupName(String(desired.body.displayName), c.dir.embed!) : undefined;
  const members = desired ? await c.groups.memberValues(dirId, id) : [];

  // another IdP group of this directory mapping to the same embed-tenant group is never merged into this one
  const claimed = name ? await claimPlatformName(c, "g", id, name) : undefined;
  // an embed-tenant group another directory sharing the tenant manages is never joined, changed or deleted
  if (name) await ensureOwned(c, "group", name);

  // ask the members whose groups change to reconcile
  const memberSet = new Set(members);
  const appliedSet = new Set(applied);
  const renamed = st.appliedName !== undefined && st.appliedName !== name;
  const affected = renamed ? [...new Set([...members, ...applied])] : [...members.filter((m) => !appliedSet.has(m)), ...applied.filter((m) => !memberSet.has(m))];
  for (const uid of affected) await c.enqueue("user", uid);
  await c.state.applyMembers(appliedKey, members.filter((m) => !appliedSet.has(m)), applied.filter((m) => !memberSet.has(m)));

  let outcome: Outcome = affected.length ? "updated" : "unchanged";
  const old = st.appliedName;
  if (old && (!desired || renamed)) {
    const waiting = await stillCarrying(c, [...new Set([...applied, ...members])], old);
    if (waiting.length) throw new WaitError(`waiting for ${waiting.length} member(s) to leave embed group "${old}"`);
    await ensureOwned(c, "group", old);
    const group = await c.platform.embed.findGroupByName(tenant, old);
    if (group) await c.platform.embed.deleteGroup(tenant, group.id);
    await forgetOwned(c, "group", old);
    outcome = desired ? "updated" : "deleted";
  }
  if (!desired || !name) await releasePlatformName(c, "g", id);
  if (!desired) {
    await c.state.remove(dirId, "group", id);
    return outcome === "unchanged" ? "deleted" : outcome;
  }
  await c.state.update(dirId, "group", id, {
    appliedName: name, status: "synced", attempts: 0, lastError: undefined, drift: undefined, syncedAt: new Date().toISOString(),
  });
  await claimed?.settle();
  return outcome;
}
