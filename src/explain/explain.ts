/**
 * "Why isn't this user on the platform?": for one user or group of a directory, the desired payload, the
 * last one applied, the platform's live record (one read, through the directory's own platform client),
 * their differences, where it stands in line and the blocker in words with the action that clears it.
 */
import type { DirectoryConfig } from "../config/schema";
import type { PlatformClient } from "../platform";
import type { RedisConnection } from "../store/connection";
import { standing, type Standing } from "../sync/waiting/waiting";
import { blockerOf, type Blocker } from "./blocker";
import { platformView, type PlatformView } from "./platform-view";
import { resolveResource, type ResolveDeps, type ResolvedResource } from "./resolve-resource";
import { UnknownResourceError } from "./errors";

export interface ExplainDeps extends ResolveDeps {
  redis: RedisConnection;
  keyPrefix: string;
  /** The directory as it is now, or undefined for one the bridge does not have. */
  directory(id: string): { dir: DirectoryConfig; disabled: boolean } | undefined;
  /** A platform client of the directory (closed after use), or why this process cannot have one. */
  platform(dir: DirectoryConfig): PlatformClient | string;
}

export interface Explanation extends PlatformView {
  directory: string;
  resource: { kind: "user" | "group"; id: string; name: string | null; existsInIdp: boolean };
  sync: { status: string | null; attempts: number; lastError: string | null; changedAt: string | null; syncedAt: string | null; drift: string | null; brake: string | null };
  queue: Standing;
  blocker: Blocker;
  /** When this was read. */
  at: string;
}

export { UnknownResourceError };

/** Explains a resolved resource with a client already made (sync-now reads with the one it then writes with). */
export async function explainResolved(d: ExplainDeps, dir: DirectoryConfig, disabled: boolean, r: ResolvedResource, platform: PlatformClient | string): Promise<Explanation> {
  const [st, meta, queue] = await Promise.all([
    d.state.get(dir.id, r.kind, r.id), d.state.meta(dir.id), standing(d.redis, d.keyPrefix, dir.id, `${r.kind}:${r.id}`),
  ]);
  const view = await platformView(dir, r, st, platform);
  const exists = !!(r.user ?? r.group);
  return {
    directory: dir.id, resource: { kind: r.kind, id: r.id, name: r.name, existsInIdp: exists },
    sync: {
      status: st.status ?? null, attempts: st.attempts, lastError: st.lastError ?? null, changedAt: st.changedAt ?? null,
      syncedAt: st.syncedAt ?? null, drift: st.drift ?? null, brake: st.brake ?? null,
    },
    ...view, queue,
    blocker: blockerOf({ dir: dir.id, kind: r.kind, id: r.id, disabled, meta, st, standing: queue, view, exists }),
    at: new Date().toISOString(),
  };
}

/** Explains the resource `ref` (a SCIM id, userName or group displayName) of directory `dirId`. */
export async function explain(d: ExplainDeps, dirId: string, ref: string): Promise<Explanation> {
  const entry = d.directory(dirId);
  if (!entry) throw new Error(`unknown directory "${dirId}"`);
  const r = await resolveResource(d, dirId, ref);
  if (!r) throw new UnknownResourceError(dirId, ref);
  const platform = d.platform(entry.dir);
  try {
    return await explainResolved(d, entry.dir, entry.disabled, r, platform);
  } finally {
    if (typeof platform !== "string") await platform.close().catch(() => undefined);
  }
}
