/**
 * What explain and sync-now need, built from the operator surface's context (admin API or CLI): the
 * stores on its connection, the registry's directories, and a platform client made for the request from
 * this process's environment (the directory's own key variable, rate share and connection cap).
 */
import pino, { type Logger } from "pino";
import type { OpsContext } from "../admin/ops-context";
import { ActivityStore } from "../activity/activity-store";
import { NameClaims } from "../sync/ownership/name-claims";
import { Ownership } from "../sync/ownership/ownership-store";
import { DeprovisionBrake } from "../sync/brake/brake";
import { createDirectoryPlatform } from "../sync/platform-calls/directory-platform";
import type { SyncNowDeps } from "./sync-now";

/** Explain and sync-now dependencies on `c`; `env` holds the platform key variables (default: this process's). */
export function explainDeps(c: OpsContext, logger: Logger = pino({ level: "silent" }), env: NodeJS.ProcessEnv = process.env): SyncNowDeps {
  const p = c.config.redis.keyPrefix;
  return {
    users: c.users, groups: c.groups, state: c.state, redis: c.redis, keyPrefix: p, usage: c.usage,
    claims: new NameClaims(c.redis, p), ownership: new Ownership(c.redis, p), brake: new DeprovisionBrake(c.redis, p, logger), logger,
    activity: new ActivityStore(c.redis, p, c.config.activity.maxEvents, c.config.activity.retentionDays),
    directory: (id) => {
      const e = c.registry.get(id);
      return e ? { dir: e.dir, disabled: e.disabled } : undefined;
    },
    platform: (dir) => createDirectoryPlatform(dir, c.config, c.redis, env, logger),
    enqueue: (dir, kind, id) => c.queues.enqueue(dir, kind, id),
    release: (dir, kind, id) => c.queues.release(dir, kind, id),
  };
}
