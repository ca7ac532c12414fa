/**
 * An operator's answer to a same-name group conflict (name-conflicts.ts): which IdP group keeps the
 * platform name. Two IdP groups may share a displayName (RFC 7643 §4.2: uniqueness "none"), the platform
 * may not; the first to claim the name holds it and the other fails with "name conflict". That first one
 * is not always the one the IdP uses — a create retried after its answer was lost made a second group,
 * and the IdP pushes members to the second — so the operator can give the name to the other group.
 *
 * The chosen group takes the claim over from the holder. On a workforce directory it also takes the
 * holder's platform group (same id: the platform group keeps its name and history) and its next reconcile
 * compares the members with the platform's, adding its own and removing the holder's; the holder forgets
 * that platform group and, reconciled again, fails with the name conflict until it is renamed or deleted in
 * the IdP. On an embed directory both groups' members are reconciled again (the name's members change).
 */
import type { DirectoryConfig } from "../../config/schema";
import type { GroupStore } from "../../store";
import type { SyncKind, SyncStateStore } from "../state/sync-state";
import type { NameClaims } from "./name-claims";
import { embedGroupName } from "../mapping/embed-user";

export interface KeepNameDeps {
  groups: GroupStore;
  state: SyncStateStore;
  claims: NameClaims;
  enqueue(kind: SyncKind, id: string): Promise<void>;
}

export type KeepNameResult =
  | { ok: true; name: string; group: string; displaced?: string }
  | { ok: false; status: 404 | 409; error: string };

/** Gives the platform name of group `groupId` to it, displacing the group of the directory that holds it. */
export async function keepPlatformName(d: KeepNameDeps, dir: DirectoryConfig, groupId: string): Promise<KeepNameResult> {
  const g = await d.groups.get(dir.id, groupId, false);
  if (!g) return { ok: false, status: 404, error: `group ${groupId} is not in directory "${dir.id}"` };
  const displayName = String(g.body.displayName);
  const name = dir.target === "embed" ? embedGroupName(displayName, dir.embed!) : displayName;
  if (!name) return { ok: false, status: 409, error: `group ${groupId} ("${displayName}") maps to no embed-tenant group (embed.groupFilter): it has no platform name to keep` };
  const [holder] = await d.claims.holders(dir.id, "g", [name]);
  if (holder === groupId) return { ok: true, name, group: groupId };
  const claimed = await d.claims.claim(dir.id, "g", groupId, name, holder ?? "");
  if (!claimed.ok) return { ok: false, status: 409, error: `group ${claimed.holder} took the name "${name}" meanwhile; try again` };
  if (holder) {
    if (dir.target === "workforce") {
      const held = await d.state.get(dir.id, "group", holder);
      // the chosen group takes over the platform group the holder made or adopted; the holder forgets it
      await d.state.update(dir.id, "group", groupId, held.platformId ? { platformId: held.platformId, drift: "members", hash: undefined } : { hash: undefined });
      await d.state.update(dir.id, "group", holder, { platformId: undefined, hash: undefined, drift: undefined });
    } else {
      // an embed-tenant group is addressed by name: both groups' members are reconciled again
      await d.state.update(dir.id, "group", groupId, { hash: undefined });
      await d.state.update(dir.id, "group", holder, { hash: undefined });
    }
  }
  await d.enqueue("group", groupId);
  if (holder) await d.enqueue("group", holder);
  return { ok: true, name, group: groupId, ...(holder ? { displaced: holder } : {}) };
}
