/**
 * The operator's explicit hand-over of a platform resource from one directory to another, shared by the admin API (`POST /admin/ownership/handover`) and the CLI (`scim-bridge handover`).
 * The receiving directory's items that failed on the ownership conflict are queued again, so they adopt
 * the resource now; the directory it was taken from fails with a conflict naming the new owner if it
 * touches it again. An unknown directory, or a resource no directory manages (a mistyped id), is answered
 * 404 and nothing is written.
 */
import type { Logger } from "pino";
import { accountIdentity, sameAccount } from "../../accounts/account-identity";
import type { Config, DirectoryConfig } from "../../config/schema";
import { type SyncStateStore } from "../state/sync-state";
import { Ownership, type OwnerSpace } from "./ownership-store";
import { retryFailed } from "../control/directory-control";
import type { SyncQueues } from "../admission/queues";

export interface HandoverRequest {
  /** "u" / "g" (workforce platform user / group id), "eu" (embed externalId), "eg:<tenant>" (embed-tenant group name). */
  space: string;
  resource: string;
  to: string;
  /** Only when this directory owns it now. */
  from?: string;
}

export type HandoverResult =
  /** `account`: the canonical identity of the platform account both directories are on. */
  | { ok: true; space: OwnerSpace; resource: string; from: string | null; to: string; requeued: number; account: string }
  | { ok: false; status: 400 | 404 | 409; error: string };

export interface HandoverDeps {
  config: Config;
  /** A directory by id: the config file's and those made at runtime (default: the config file's only). */
  directory?: (id: string) => DirectoryConfig | undefined;
  redis: import("../../store/connection").RedisConnection;
  state: SyncStateStore;
  queues: SyncQueues;
  logger?: Logger;
}

/** The owner spaces a directory's resources live in. */
function spacesOf(d: DirectoryConfig): string[] {
  return d.target === "workforce" ? ["u", "g"] : ["eu", `eg:${d.embed!.tenantName}`];
}

/** Hands `resource` over to `to`; `who` is recorded in the log. */
export async function handOver(d: HandoverDeps, req: HandoverRequest, who: string): Promise<HandoverResult> {
  const find = d.directory ?? ((id: string) => d.config.directories.find((x) => x.id === id));
  const to = find(req.to);
  if (!to) return { ok: false, status: 404, error: `unknown directory "${req.to}"` };
  if (!spacesOf(to).includes(req.space)) {
    return { ok: false, status: 400, error: `space must be one of ${spacesOf(to).map((s) => `"${s}"`).join(", ")} for directory "${to.id}"` };
  }
  if (!req.resource || req.resource.length > 1024) return { ok: false, status: 400, error: "resource must be the platform id, externalId or group name (1–1024 characters)" };
  if (req.from !== undefined) {
    const from = find(req.from);
    if (!from) return { ok: false, status: 404, error: `unknown directory "${req.from}"` };
    // one account whatever the spelling of its URL (the ownership map is keyed by the canonical identity)
    if (!sameAccount(from.platform.baseUrl, to.platform.baseUrl)) return { ok: false, status: 400, error: `directories "${from.id}" and "${to.id}" are on different platform accounts` };
  }
  const space = req.space as OwnerSpace;
  const resource = space.startsWith("eg:") ? req.resource.toLowerCase() : req.resource;
  const r = await new Ownership(d.redis, d.config.redis.keyPrefix).handOver(to.platform.baseUrl, space, resource, to.id, req.from ?? "");
  // a resource no directory manages (a mistyped or unknown id): nothing to hand over, and nothing written
  if (r.missing) return { ok: false, status: 404, error: `no directory manages ${resource} (space "${space}") on this platform account: check the id; a resource nobody manages is taken by the first directory that syncs it` };
  if (!r.ok) return { ok: false, status: 409, error: `${resource} is managed by ${r.owner ? `directory "${r.owner}"` : "no directory"}, not "${req.from}"` };
  const waiting = [];
  for (const it of await d.state.inStatus(to.id, "failed")) {
    const st = await d.state.get(to.id, it.kind, it.id);
    if (st.lastError?.startsWith("ownership conflict") && st.lastError.includes(` ${req.resource} `)) waiting.push(it);
  }
  const requeued = await retryFailed(d.state, to.id, (kind, id) => d.queues.enqueue(to.id, kind, id), waiting);
  d.logger?.warn({ space, resource, from: r.owner ?? null, to: to.id, by: who, requeued }, "platform resource handed over");
  return { ok: true, space, resource, from: r.owner ?? null, to: to.id, requeued, account: accountIdentity(to.platform.baseUrl) };
}
