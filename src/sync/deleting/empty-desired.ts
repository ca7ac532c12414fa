/**
 * The reconcile context of a directory being deleted with `platform=deprovision`: its desired state is
 * empty. Every read a reconcile or a resync plan makes of the desired users and groups answers "none",
 * so the ordinary rules apply unchanged — a workforce user the bridge synced is deactivated (or deleted,
 * `workforce.onUserDelete`), a platform group it created is deleted, an embed user is cleared and an
 * embed-tenant group it applied is deleted — and only what this directory owns is touched (externalId
 * `<directory>:<id>`, its sync state, the ownership guard). The store itself is not changed: a cancelled
 * deprovision leaves the directory as it was.
 */
import type { GroupStore, UserStore } from "../../store";
import type { ReconcileContext } from "../context";

/** `users` with no user in any directory (other methods as the store has them). */
function noUsers(users: UserStore): UserStore {
  const view = Object.create(users) as UserStore;
  view.get = async () => undefined;
  view.getWithoutGroups = async () => undefined;
  view.find = async () => [];
  view.ids = async () => [];
  view.idsAfter = async () => ({ ids: [], seqs: [], last: 0 });
  view.seqsOf = async (_dir, ids) => ids.map(() => null);
  return view;
}

/** `groups` with no group in any directory. */
function noGroups(groups: GroupStore): GroupStore {
  const view = Object.create(groups) as GroupStore;
  view.get = async () => undefined;
  view.find = async () => [];
  view.ids = async () => [];
  view.idsAfter = async () => ({ ids: [], seqs: [], last: 0 });
  view.seqsOf = async (_dir, ids) => ids.map(() => null);
  view.memberValues = async () => [];
  return view;
}

/** The same context with an empty desired state. */
export function withEmptyDesiredState<C extends Pick<ReconcileContext, "users" | "groups">>(c: C): C {
  return { ...c, users: noUsers(c.users), groups: noGroups(c.groups) };
}
