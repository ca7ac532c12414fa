/**
 * The activity trail of each user and group: what the IdP did, what the reconciler applied, each platform
 * call (method, path, status, message), retries and pauses. One capped stream per resource, so memory is
 * bounded by resources × `activity.maxEvents`, and a trail untouched for `activity.retentionDays` expires
 * (a deleted resource's trail does not stay forever):
 *
 *   P a:<k>:<id>   STREAM  fields: e (the event as JSON: {type, at, ...}); XADD … MAXLEN = maxEvents
 *
 * where P = `<keyPrefix>:{<directoryId>}:` and <k> is "u" or "g". Values of attributes are never written,
 * only names.
 */
import type { RedisConnection } from "./connection";
import { DirectoryKeys } from "./keys";
import { defineStoreCommands, type StoreCommands } from "./scripts";
import type { SyncKind } from "./sync-state";

/** One event of a trail. */
export interface ActivityEvent {
  /** idp: a SCIM write from the IdP; applied: the reconciler's outcome; call: one platform call (one try);
   *  retry / paused / rate-limited / failed / waiting: what became of a failed reconcile. */
  type: "idp" | "applied" | "call" | "retry" | "paused" | "rate-limited" | "failed" | "waiting";
  at: string;
  method?: string;
  path?: string;
  status?: number;
  message?: string;
  /** idp: names of the attributes the request set or changed (never their values). */
  attributes?: string[];
  /** applied: the reconciler's outcome (created, updated, unchanged, deactivated, deleted, …). */
  outcome?: string;
  attempt?: number;
  durationMs?: number;
}

export class ActivityStore {
  private readonly redis: RedisConnection & StoreCommands;

  constructor(redis: RedisConnection, private readonly keyPrefix: string, private readonly maxEvents = 50, private readonly retentionDays = 30) {
    this.redis = defineStoreCommands(redis);
  }

  key(dir: string, kind: SyncKind, id: string): string {
    return `${new DirectoryKeys(this.keyPrefix, dir).prefix}a:${kind === "user" ? "u" : "g"}:${id}`;
  }

  /** Appends events in order, keeping the newest `maxEvents` (one script: appendActivity-1.lua). */
  async append(dir: string, kind: SyncKind, id: string, events: ActivityEvent[]): Promise<void> {
    if (!events.length) return;
    await this.redis.appendActivity(this.key(dir, kind, id), String(this.maxEvents), String(this.retentionDays * 86400), ...events.map((e) => JSON.stringify(e)));
  }

  /** The trail, newest first. */
  async read(dir: string, kind: SyncKind, id: string): Promise<ActivityEvent[]> {
    const entries = await this.redis.xrevrange(this.key(dir, kind, id), "+", "-", "COUNT", this.maxEvents);
    return entries.map(([, fields]) => {
      try { return JSON.parse(fields[1]) as ActivityEvent; } catch { return undefined; }
    }).filter((e): e is ActivityEvent => !!e);
  }
}
