/**
 * Embed target, users: each SCIM user is an external user of the directory's embed tenant, provisioned
 * and updated with `POST /v1/embed/generate-session` (creator mode, definitions included). Deprovisioning
 * (IdP deactivation or DELETE) sends `groups: []` and nulls the mapped attributes, and marks the user
 * deprovisioned: the contract shows no delete of an external user. Deprovisions pass the directory's
 * deprovision brake first (src/sync/brake/brake.ts). The account-wide external-user limit
 * is checked before a new external user is provisioned; existing ones keep syncing at the limit.
 */
import type { ReconcileContext, Outcome } from "../context";
import { MappingError } from "../context";
import { atWarningLevel } from "../ownership/external-user-usage";
import { ValidationError } from "../../platform";
import { embedDeprovisionRequest, embedExternalId, embedUserRequest, typeConflictDetail } from "../mapping/embed-user";
import { payloadHash } from "../mapping/payload-hash";
import { claimPlatformName, claimedGroupNames, releasePlatformName } from "../ownership/name-conflicts";
import { ensureOwned } from "../ownership/ownership-guard";
import { held } from "./workforce-user";

/** The platform's `cannot change type`, word for word, followed by the mapping entries that sent the type. */
function withTypeConflictDetail(err: unknown, embed: NonNullable<ReconcileContext["dir"]["embed"]>): unknown {
  if (!(err instanceof ValidationError) || !/cannot change type/i.test(err.message) || !embed.attributeMapping.length) return err;
  return new ValidationError(err.status, `${err.message}: ${typeConflictDetail(embed)}`, err.requestId, err.scimType);
}

/** True for a platform answer of 4xx: the request was refused, nothing was written. */
function isRefused(err: unknown): boolean {
  const status = (err as { status?: number })?.status;
  return typeof status === "number" && status >= 400 && status < 500;
}

async function deprovision(c: ReconcileContext, id: string, externalId: string | undefined): Promise<Outcome> {
  const dirId = c.dir.id;
  const st = await c.state.get(dirId, "user", id);
  const ext = st.externalId ?? externalId;
  if (!st.externalId) {
    // never provisioned: there is no external user to clear, and a call would create one
    await c.state.update(dirId, "user", id, { status: "deprovisioned", attempts: 0, lastError: undefined, drift: undefined });
    return "unchanged";
  }
  const req = embedDeprovisionRequest(c.dir, ext!);
  const hash = payloadHash(req);
  if (st.status === "deprovisioned" && st.hash === hash && !st.drift) return "unchanged";
  // a burst of IdP deprovisions is held before the platform (the brake); a resync's is its safeguard's
  const action = externalId === undefined ? "delete" : "deactivate";
  if (await held(c, { kind: "user", id, action, name: ext!, version: hash }, !!st.drift)) return "unchanged";
  await ensureOwned(c, "user", ext!);
  await c.platform.embed.generateSession(req);
  await c.state.update(dirId, "user", id, {
    hash, status: "deprovisioned", appliedGroups: "[]", attempts: 0, lastError: undefined, drift: undefined, syncedAt: new Date().toISOString(),
  });
  return "deactivated";
}

/** Reconciles one user of an embed directory. */
export async function reconcileEmbedUser(c: ReconcileContext, id: string): Promise<Outcome> {
  const dirId = c.dir.id;
  const embed = c.dir.embed!;
  const desired = await c.users.get(dirId, id);
  if (!desired) {
    const outcome = await deprovision(c, id, undefined);
    await releasePlatformName(c, "u", id);
    return outcome;
  }
  if (desired.body.active === false) return deprovision(c, id, embedExternalId(desired, embed));

  const externalId = embedExternalId(desired, embed);
  if (!externalId) throw new MappingError(`user has no value for ${embed.externalIdAttribute}, which the directory maps to the platform externalId`);
  // another IdP user of this directory with the same externalId is never merged into this one's external user
  const claimed = await claimPlatformName(c, "u", id, externalId);
  const st = await c.state.get(dirId, "user", id);
  // an active user is no deprovision: one of it the brake knows of is forgotten
  if (st.brake) await c.brake?.clear(dirId, "user", id);
  if (st.externalId && st.externalId !== externalId) {
    // the user's externalId changed (e.g. a userName rename): clear the old external user first
    await ensureOwned(c, "user", st.externalId);
    await c.platform.embed.generateSession(embedDeprovisionRequest(c.dir, st.externalId));
  }
  // only the names its own groups hold: a group refused its name (conflict) adds nobody to the other's
  const groupNames = await claimedGroupNames(c, desired.groups);
  const req = embedUserRequest(c.dir, desired, externalId, groupNames);
  const hash = payloadHash(req);
  if (st.externalId === externalId && st.hash === hash && st.status === "synced" && !st.drift) {
    await claimed.settle();
    return "unchanged";
  }

  // an external user another directory of this account manages is never taken over
  await ensureOwned(c, "user", externalId);
  const { usage, added } = await c.usage.reserve(c.dir.platform.baseUrl, externalId, embed.externalUserLimit);
  if (atWarningLevel(usage, embed.externalUserLimit) && st.externalId !== externalId) {
    c.logger.warn({ directory: dirId, usage, limit: embed.externalUserLimit }, "external users at 90% or more of the account limit");
  }
  try {
    await c.platform.embed.generateSession(req);
  } catch (err) {
    // a 4xx answer means the platform refused before writing: the user it did not create must not count
    if (added && isRefused(err)) await c.usage.release(c.dir.platform.baseUrl, externalId);
    throw withTypeConflictDetail(err, embed);
  }
  if (req.groups?.length) await c.state.trackEmbedGroups(dirId, req.groups);
  await c.state.update(dirId, "user", id, {
    externalId, hash, status: "synced", appliedGroups: JSON.stringify(req.groups), attempts: 0, lastError: undefined,
    drift: undefined, syncedAt: new Date().toISOString(),
  });
  await claimed.settle();
  return st.externalId ? "updated" : "created";
}
