/** Picks the reconciler for a resource from the directory's target ("workforce" | "embed") and its kind. */
import type { SyncKind } from "./state/sync-state";
import type { Outcome, ReconcileContext } from "./context";
import { reconcileEmbedGroup } from "./targets/embed-group";
import { reconcileEmbedUser } from "./targets/embed-user";
import { reconcileWorkforceGroup } from "./targets/workforce-group";
import { reconcileWorkforceUser } from "./targets/workforce-user";

/** Reconciles one resource against the platform; throws what the platform or the mapping threw. */
export function reconcile(c: ReconcileContext, kind: SyncKind, id: string): Promise<Outcome> {
  if (c.dir.target === "embed") return kind === "user" ? reconcileEmbedUser(c, id) : reconcileEmbedGroup(c, id);
  return kind === "user" ? reconcileWorkforceUser(c, id) : reconcileWorkforceGroup(c, id);
}
