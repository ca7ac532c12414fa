/**
 * Finds the resource an operator names: a user by SCIM id or userName, else a group by SCIM id or
 * displayName; a resource the IdP deleted is still found by its SCIM id while its sync state remains.
 */
import type { GroupRecord, GroupStore, UserRecord, UserStore } from "../store";
import type { SyncKind, SyncStateStore } from "../sync/state/sync-state";

export interface ResolvedResource {
  kind: SyncKind;
  id: string;
  /** userName or displayName as the IdP sent it (null for one the IdP deleted). */
  name: string | null;
  /** The desired state; undefined when the IdP deleted it (only its sync state remains). */
  user?: UserRecord;
  group?: GroupRecord;
}

export interface ResolveDeps {
  users: UserStore;
  groups: GroupStore;
  state: SyncStateStore;
}

/** The resource `ref` names in directory `dir`, or undefined when neither side knows it. */
export async function resolveResource(d: ResolveDeps, dir: string, ref: string): Promise<ResolvedResource | undefined> {
  const ref2 = ref.trim();
  if (!ref2) return undefined;
  const user = (await d.users.get(dir, ref2)) ?? (await d.users.find(dir, "userName", [ref2]))[0];
  if (user) return { kind: "user", id: user.id, name: String(user.body.userName ?? "") || null, user };
  const group = (await d.groups.get(dir, ref2, false)) ?? (await d.groups.find(dir, "displayName", [ref2], false))[0];
  if (group) return { kind: "group", id: group.id, name: String(group.body.displayName ?? "") || null, group };
  // gone from the desired state: its sync state says what the bridge still has to do (or did) on the platform
  for (const kind of ["user", "group"] as const) {
    const st = await d.state.get(dir, kind, ref2);
    if (st.status || st.platformId) return { kind, id: ref2, name: null };
  }
  return undefined;
}
