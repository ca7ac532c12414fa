/**
 * Does the platform hold exactly what the bridge holds? Compares one workforce directory's desired state
 * (read from the store) with the simulator's SCIM users and groups, and lists every difference as a
 * sentence (empty: they match).
 *
 * - Users pair up by the bridge's marker `externalId = <directory>:<scim id>`. Each copied attribute of
 *   `workforceUserPayload` and `active` must be equal; a platform user the bridge no longer has must be
 *   inactive; no marker may appear twice (a duplicate).
 * - Groups pair up by displayName (the bridge adopts a platform group of the same name). Their members
 *   must be the platform ids of the bridge members that are active users; an inactive user may be
 *   either in or out (whether deactivation removes memberships is the target's decision, not tested here).
 */
import type { GroupStore, UserStore, UserRecord, GroupRecord } from "../../src/store";
import { managedExternalId, workforceUserPayload } from "../../src/sync/mapping/workforce-user";
import type { SimStateView } from "./sync-env";

const CHUNK = 500;

/** Every user of a directory, read from the store in chunks. */
export async function bridgeUsers(users: UserStore, dir: string): Promise<UserRecord[]> {
  const ids = await users.ids(dir);
  const out: UserRecord[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await users.find(dir, "id", ids.slice(i, i + CHUNK))));
  return out;
}

/** Every group of a directory with its members. */
export async function bridgeGroups(groups: GroupStore, dir: string): Promise<GroupRecord[]> {
  const ids = await groups.ids(dir);
  const out: GroupRecord[] = [];
  for (let i = 0; i < ids.length; i += 50) out.push(...(await groups.find(dir, "id", ids.slice(i, i + 50), true)));
  return out;
}

/** JSON with object keys sorted: equal for equal values whatever their key order or realm. */
function canon(v: unknown): string | undefined {
  return JSON.stringify(v, (_k, x: unknown) => (x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : x));
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? "(absent)" : s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/** Differences between a directory on the bridge and on the simulator (workforce target). */
export function diffWorkforce(dir: string, users: UserRecord[], groups: GroupRecord[], sim: SimStateView): string[] {
  const out: string[] = [];
  const byMarker = new Map<string, SimStateView["scim"]["users"][number]>();
  for (const u of sim.scim.users) {
    const marker = typeof u.externalId === "string" ? u.externalId : "";
    if (!marker.startsWith(`${dir}:`)) continue;
    if (byMarker.has(marker)) out.push(`user ${marker}: on the platform twice (${byMarker.get(marker)!.id}, ${u.id})`);
    byMarker.set(marker, u);
  }
  const pidOf = new Map<string, string>();
  const activeIds = new Set<string>();
  for (const u of users) {
    const marker = managedExternalId(dir, u.id);
    const want = workforceUserPayload(dir, u) as unknown as Record<string, unknown>;
    if (want.active !== false) activeIds.add(u.id);
    const got = byMarker.get(marker);
    byMarker.delete(marker);
    if (!got) { out.push(`user ${String(want.userName)} (${u.id}): missing on the platform`); continue; }
    pidOf.set(u.id, got.id);
    for (const [k, v] of Object.entries(want)) {
      if (canon(v) !== canon((got as Record<string, unknown>)[k])) out.push(`user ${String(want.userName)}: ${k} is ${show((got as Record<string, unknown>)[k])} on the platform, ${show(v)} on the bridge`);
    }
  }
  for (const [marker, u] of byMarker) if (u.active !== false) out.push(`user ${u.userName} (${marker}): active on the platform, gone from the bridge`);

  const simGroups = new Map(sim.scim.groups.map((g) => [g.displayName.toLowerCase(), g]));
  for (const g of groups) {
    const name = String(g.body.displayName);
    const got = simGroups.get(name.toLowerCase());
    if (!got) { out.push(`group ${name}: missing on the platform`); continue; }
    const onPlatform = new Set(got.members.map((m) => m.value));
    const inactivePids = new Set(users.filter((u) => !activeIds.has(u.id)).map((u) => pidOf.get(u.id)).filter(Boolean));
    const want = new Set((g.members ?? []).filter((m) => activeIds.has(m.value)).map((m) => pidOf.get(m.value) ?? `(no platform id for ${m.value})`));
    const missing = [...want].filter((p) => !onPlatform.has(p));
    const extra = [...onPlatform].filter((p) => !want.has(p) && !inactivePids.has(p));
    if (missing.length) out.push(`group ${name}: ${missing.length} member(s) missing on the platform, e.g. ${missing.slice(0, 3).join(", ")}`);
    if (extra.length) out.push(`group ${name}: ${extra.length} member(s) on the platform the bridge does not have, e.g. ${extra.slice(0, 3).join(", ")}`);
  }
  return out;
}
