/**
 * Helpers of the resync tests: an admin app over the harness's runtime (admin token configured through
 * `config.admin.tokenHashes`), calls to the simulator's platform SCIM API to inject drift, and removal of a
 * resource from the store behind the bridge's back (no outbox entry, so no reconcile).
 */
import { createHash } from "node:crypto";
import express, { type Express } from "express";
import request from "supertest";
import { adminRouter } from "../../src/admin/app";
import type { ResyncProgress } from "../../src/sync/resync/resync";
import { PLATFORM_KEY, waitFor, type SyncEnv } from "./sync-env";

export const ADMIN_TOKEN = "resync-admin-token-0001";

/** `config` overrides that accept ADMIN_TOKEN on the admin API. */
export const adminConfig = { admin: { tokenHashes: [createHash("sha256").update(ADMIN_TOKEN).digest("hex")] } };

/** The admin API mounted at /admin, as the server mounts it. */
export function adminApp(e: SyncEnv): Express {
  const app = express();
  app.use("/admin", adminRouter({ config: e.config, redis: e.redis, queues: e.runtime!.queues }));
  return app;
}

/** POST /admin/directories/:dir/resync. */
export function postResync(e: SyncEnv, dir: string): request.Test {
  return request(adminApp(e)).post(`/admin/directories/${dir}/resync`).set("Authorization", `Bearer ${ADMIN_TOKEN}`);
}

/** GET /admin/directories/:dir/resync. */
export async function getResync(e: SyncEnv, dir: string): Promise<ResyncProgress> {
  const res = await request(adminApp(e)).get(`/admin/directories/${dir}/resync`).set("Authorization", `Bearer ${ADMIN_TOKEN}`);
  expect(res.status).toBe(200);
  return res.body as ResyncProgress;
}

/** Starts a resync through the admin API and waits for its final summary (a new resync id, status done). */
export async function resyncThroughAdmin(e: SyncEnv, dir: string, timeoutMs = 20000): Promise<ResyncProgress> {
  const before = await getResync(e, dir);
  const res = await postResync(e, dir);
  expect(res.status).toBe(202);
  return waitFor(async () => {
    const p = await getResync(e, dir);
    return p.id && p.id !== before.id && p.status === "done" ? p : undefined;
  }, timeoutMs, `resync of ${dir} done`) as Promise<ResyncProgress>;
}

/** A call to the simulator's platform SCIM API (drift injection), with the bridge's key. */
export async function platformScim(e: SyncEnv, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${e.sim.baseUrl}/scim/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${PLATFORM_KEY}`, "Content-Type": "application/scim+json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res;
}

/** Simulator write counters (total). */
export async function writes(e: SyncEnv): Promise<number> {
  return (await e.simState()).counters.total.writes;
}

/**
 * Removes a user (in no group) from the store directly — record, creation-order entry and userName index —
 * with no outbox entry: as if the IdP's delete had been lost before any reconcile. With `forgetSyncState`
 * the bridge's sync state of it goes too, so only the platform side still knows the user.
 */
export async function dropUserBehindBridge(e: SyncEnv, dir: string, id: string, forgetSyncState = false): Promise<void> {
  const k = e.users.keys(dir);
  const user = await e.users.get(dir, id);
  await e.redis.multi().del(k.user(id)).zrem(k.users, id).hdel(`${k.prefix}ix:un`, String(user?.body.userName ?? "").toLowerCase()).exec();
  if (forgetSyncState) await e.state.remove(dir, "user", id);
}

/** Removes a group from the store directly (record, creation-order entry, name index, members), no outbox entry. */
export async function dropGroupBehindBridge(e: SyncEnv, dir: string, id: string): Promise<void> {
  const k = e.groups.keys(dir);
  const group = await e.groups.get(dir, id, false);
  await e.redis.multi().del(k.group(id), k.groupMembers(id)).zrem(k.groups, id).zrem(`${k.prefix}ix:gns`, `${String(group?.body.displayName ?? "").toLowerCase()}\0${id}`).exec();
}
