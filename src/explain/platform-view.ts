/**
 * What the bridge wants on the platform for one resource, what it last applied, and what the platform
 * holds now: the desired payload (as the reconciler builds it), one read of the platform's live record
 * through the directory's own client, and the attributes where the two differ.
 */
import type { DirectoryConfig } from "../config/schema";
import type { PlatformClient } from "../platform";
import type { SyncRecord } from "../sync/state/sync-state";
import { payloadHash } from "../sync/mapping/payload-hash";
import { managedExternalId, workforceUserPayload } from "../sync/mapping/workforce-user";
import { embedExternalId, embedGroupName, embedUserRequest } from "../sync/mapping/embed-user";
import type { ResolvedResource } from "./resolve-resource";

export interface Difference {
  attribute: string;
  desired: unknown;
  platform: unknown;
}

export interface PlatformView {
  /** The payload the reconciler would send now; null when the IdP deleted the resource. */
  desired: Record<string, unknown> | null;
  /** The last payload applied, by its hash (the bridge keeps the hash, not the payload). */
  lastApplied: { hash: string | null; matchesDesired: boolean; at: string | null; platformId: string | null };
  /** The platform's live record: `read` false when no read was made (and `why`). */
  platform: { read: boolean; record: Record<string, unknown> | null; why?: string; error?: string };
  /** Attributes of the desired payload whose value on the platform differs (empty when not read). */
  differences: Difference[];
}

/** The desired payload, the hash the reconciler compares with the applied one, and how to read the live record. */
function desiredOf(dir: DirectoryConfig, r: ResolvedResource, st: SyncRecord): { payload: Record<string, unknown> | null; hash: string | null } {
  if (r.user) {
    if (dir.target === "workforce") {
      const payload = workforceUserPayload(dir.id, r.user) as unknown as Record<string, unknown>;
      return { payload, hash: payloadHash(payload) };
    }
    const externalId = embedExternalId(r.user, dir.embed!);
    if (!externalId) return { payload: null, hash: null };
    const names = r.user.groups.map((g) => embedGroupName(String(g.display ?? ""), dir.embed!)).filter((n): n is string => !!n);
    const req = embedUserRequest(dir, r.user, externalId, names) as unknown as Record<string, unknown>;
    return { payload: req, hash: payloadHash(req) };
  }
  if (r.group) {
    const displayName = String(r.group.body.displayName);
    if (dir.target === "workforce") {
      return { payload: { displayName, externalId: st.platformId ? undefined : managedExternalId(dir.id, r.id), members: r.group.memberCount }, hash: payloadHash({ displayName }) };
    }
    return { payload: { name: embedGroupName(displayName, dir.embed!) ?? displayName, members: r.group.memberCount }, hash: null };
  }
  return { payload: null, hash: null };
}

/** One read of the platform's record of the resource (at most one call; none when there is nothing to read). */
async function readLive(dir: DirectoryConfig, r: ResolvedResource, st: SyncRecord, platform: PlatformClient): Promise<PlatformView["platform"]> {
  if (dir.target === "workforce") {
    if (r.kind === "user") {
      if (st.platformId) return { read: true, record: await platform.scim.getUser(st.platformId) };
      if (r.user) return { read: true, record: await platform.scim.findUserByUserName(String(r.user.body.userName)) };
    } else {
      if (st.platformId) return { read: true, record: await platform.scim.getGroup(st.platformId, { excludeMembers: true }) };
      if (r.group) return { read: true, record: await platform.scim.findGroupByDisplayName(String(r.group.body.displayName), { excludeMembers: true }) };
    }
    return { read: false, record: null, why: "the bridge never created it on the platform and the IdP no longer has it" };
  }
  if (r.kind === "user") {
    return { read: false, record: null, why: "the platform has no read of one external user (embed users are written with generate-session only)" };
  }
  const name = r.group ? embedGroupName(String(r.group.body.displayName), dir.embed!) : st.appliedName;
  if (!name) return { read: false, record: null, why: "the group has no embed-tenant name" };
  return { read: true, record: (await platform.embed.findGroupByName(dir.embed!.tenantName, name)) as Record<string, unknown> | null };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The attributes of `desired` that the platform's record holds differently (SCIM read-only ones skipped). */
export function differences(desired: Record<string, unknown> | null, live: Record<string, unknown> | null): Difference[] {
  if (!desired) return live && live.active !== false && "active" in live ? [{ attribute: "active", desired: false, platform: live.active }] : [];
  if (!live) return [{ attribute: "(resource)", desired: "present", platform: "absent" }];
  const out: Difference[] = [];
  for (const [attribute, value] of Object.entries(desired)) {
    if (value === undefined || attribute === "members" || attribute === "schemas") continue;
    // SCIM: active defaults to true when the platform omits it
    const theirs = attribute === "active" ? live.active ?? true : live[attribute];
    if (!same(value, theirs)) out.push({ attribute, desired: value, platform: theirs ?? null });
  }
  return out;
}

/** The desired payload, the last one applied and the platform's record; `platform` undefined: this process has no client (`why`). */
export async function platformView(
  dir: DirectoryConfig, r: ResolvedResource, st: SyncRecord, platform: PlatformClient | string,
): Promise<PlatformView> {
  const { payload, hash } = desiredOf(dir, r, st);
  const lastApplied = { hash: st.hash ?? null, matchesDesired: hash !== null && st.hash === hash, at: st.syncedAt ?? null, platformId: st.platformId ?? st.externalId ?? null };
  let live: PlatformView["platform"];
  if (typeof platform === "string") live = { read: false, record: null, why: `this process cannot call the platform: ${platform}` };
  else {
    try {
      live = await readLive(dir, r, st, platform);
    } catch (err) {
      live = { read: true, record: null, error: (err as Error).message };
    }
  }
  return { desired: payload, lastApplied, platform: live, differences: live.read && !live.error ? differences(payload, live.record) : [] };
}
