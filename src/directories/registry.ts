/**
 * The directories a process serves, as they are now: the config file's (read-only, "from config") and
 * those made at runtime through the admin API (Redis, src/directories/directory-records.ts), each with its
 * disabled flag and credentials (SCIM tokens, OAuth client secrets: hashes only).
 *
 * Every server and worker keeps this view in memory and reloads it when any process announces a change
 * on the pub/sub channel, and as a safety net (a lost message, a reconnect) when the registry's change
 * counter has moved, checked every `registry.reloadIntervalMs` (one GET: a full load reads every
 * directory's credentials, 1,000 commands a second per process at 1,000 directories), and in full at
 * least every FULL_RELOAD_MS. Listeners (the worker runtime) hear about directories added, changed, disabled or removed.
 */
import type { RedisConnection } from "../store/connection";
import type { Logger } from "pino";
import type { Config, DirectoryConfig } from "../config/schema";
import { type ReplicaAck } from "../store";
import { DirectoryRecords, type CredentialRecord } from "./directory-records";
import { DirectoryCredentials } from "../auth/directory-credentials";
import { validateDirectoryInput } from "./validate";

export interface DirectoryEntry {
  dir: DirectoryConfig;
  source: "config" | "runtime";
  disabled: boolean;
  /** Being deleted with `platform=deprovision` (see DirectoryRecord.deprovision). */
  deprovision?: "running" | "purging";
  createdAt?: string;
  updatedAt?: string;
  credentials: CredentialRecord[];
}

/** A directory's settings or state changed: `after` undefined means it is gone. */
export type DirectoryListener = (id: string, after: DirectoryEntry | undefined, before: DirectoryEntry | undefined) => Promise<void> | void;

/** The periodic check loads everything at least this often, whether the change counter moved or not. */
const FULL_RELOAD_MS = 30_000;

/** What the worker runtime cares about: a change of settings, of the disabled flag or of a deprovision's stage. */
function signature(e: DirectoryEntry | undefined): string {
  return e ? JSON.stringify([e.dir, e.disabled, e.deprovision ?? ""]) : "";
}

/**
 * Does a worker run this directory's jobs: an enabled one, or a disabled one whose delete deprovisions
 * its platform side (only that run: SCIM still answers 403 and its outbox is left alone).
 */
export function isServed(e: DirectoryEntry | undefined): boolean {
  return !!e && (!e.disabled || e.deprovision === "running");
}

export class DirectoryRegistry {
  private entries = new Map<string, DirectoryEntry>();
  private readonly listeners: DirectoryListener[] = [];
  private subscriber?: RedisConnection;
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();
  private queued = false;
  private failing = false;
  /** The change counter the last full load saw, and when that load ran. */
  private loadedVersion: string | null | undefined;
  private loadedAt = 0;

  /** The checks of the secrets the directories' callers present (src/auth/directory-credentials.ts). */
  readonly credentials: DirectoryCredentials;

  constructor(private readonly config: Config, readonly records?: DirectoryRecords, private readonly logger?: Logger) {
    this.credentials = new DirectoryCredentials((id) => this.entries.get(id), records);
    for (const d of config.directories) this.entries.set(d.id, { dir: d, source: "config", disabled: false, credentials: [] });
  }

  /** A registry of the config file's directories only (no Redis): tests and tools that need no runtime changes. */
  static fromConfig(config: Config): DirectoryRegistry {
    return new DirectoryRegistry(config);
  }

  /** Loads from RedisConnection, then follows changes (pub/sub and the periodic reload). */
  async start(): Promise<void> {
    if (!this.records) return;
    await this.reload();
    const sub = (this.records.redis as { duplicate(): RedisConnection }).duplicate();
    this.subscriber = sub;
    sub.on("error", () => undefined);
    sub.on("message", () => { void this.reload(); });
    await sub.subscribe(this.records.keys.channel).catch((err: Error) => this.logger?.warn({ err: { message: err.message } }, "directory change channel unavailable; relying on the periodic reload"));
    this.timer = setInterval(() => { void this.check(); }, this.config.registry.reloadIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.subscriber?.disconnect();
    // a reload waiting on a Redis that is down would hold the stop until Redis is back
    if (!this.records || this.records.redis.status === "ready") await this.chain;
  }

  onChange(fn: DirectoryListener): void {
    this.listeners.push(fn);
  }

  /** The periodic safety net: a full reload when the change counter moved, or FULL_RELOAD_MS after the last. */
  private async check(): Promise<void> {
    if (this.queued) return;
    if (Date.now() - this.loadedAt < FULL_RELOAD_MS) {
      const version = await this.records!.version().catch(() => undefined);
      if (version !== undefined && version === this.loadedVersion) return;
    }
    await this.reload();
  }

  /**
   * Reads the registry from Redis and tells listeners what changed. Reloads run one at a time; calls that
   * arrive while one runs are folded into a single next one.
   */
  reload(): Promise<void> {
    if (!this.records) return Promise.resolve();
    if (this.queued) return this.chain;
    this.queued = true;
    this.chain = this.chain.then(async () => {
      this.queued = false;
      try {
        await this.load();
        this.failing = false;
      } catch (err) {
        // once per outage, not once a second while Redis is away
        if (!this.failing) this.logger?.warn({ err: { message: (err as Error).message } }, "directory reload failed; keeping the last view");
        this.failing = true;
      }
    });
    return this.chain;
  }

  private async load(): Promise<void> {
    // the counter is read first: a change made during the load moves it again, so the next check reloads
    const version = await this.records!.version();
    const snap = await this.records!.snapshot(this.config.directories.map((d) => d.id));
    const next = new Map<string, DirectoryEntry>();
    for (const d of this.config.directories) {
      next.set(d.id, { dir: d, source: "config", disabled: snap.disabledConfig.has(d.id), credentials: snap.credentials.get(d.id) ?? [] });
    }
    for (const [id, rec] of snap.runtime) {
      if (next.has(id)) continue; // a config-file directory of the same id wins (the admin API refuses such ids)
      const v = validateDirectoryInput({ ...rec.input, id });
      if (!v.ok) {
        this.logger?.warn({ directory: id, issues: v.issues }, "runtime directory no longer valid; not served");
        continue;
      }
      next.set(id, { dir: v.dir, source: "runtime", disabled: rec.disabled, ...(rec.deprovision ? { deprovision: rec.deprovision.stage } : {}), createdAt: rec.createdAt, updatedAt: rec.updatedAt, credentials: snap.credentials.get(id) ?? [] });
    }
    const before = this.entries;
    this.entries = next;
    this.loadedVersion = version;
    this.loadedAt = Date.now();
    for (const id of new Set([...before.keys(), ...next.keys()])) {
      const [b, a] = [before.get(id), next.get(id)];
      if (signature(b) === signature(a)) continue;
      for (const fn of this.listeners) {
        try {
          await fn(id, a, b);
        } catch (err) {
          this.logger?.error({ directory: id, err: { message: (err as Error).message } }, "reacting to a directory change failed");
        }
      }
    }
  }

  /** Every directory, config-file ones first. */
  list(): DirectoryEntry[] {
    return [...this.entries.values()];
  }

  /** The settings of every enabled directory. */
  enabled(): DirectoryConfig[] {
    return this.list().filter((e) => !e.disabled).map((e) => e.dir);
  }

  /** Every directory a worker runs jobs of (`isServed`), and whether it is there only for its deprovision run. */
  served(): Array<{ dir: DirectoryConfig; deleting: boolean }> {
    return this.list().filter(isServed).map((e) => ({ dir: e.dir, deleting: e.disabled }));
  }

  get(id: string): DirectoryEntry | undefined {
    return this.entries.get(id);
  }
}

/**
 * A registry on RedisConnection, started. `replicaAck`: the operator's changes wait for replicas
 * (directory-records.ts).
 */
export async function startRegistry(config: Config, redis: RedisConnection, logger?: Logger, replicaAck?: ReplicaAck): Promise<DirectoryRegistry> {
  const r = new DirectoryRegistry(config, new DirectoryRecords(redis, config.redis.keyPrefix, replicaAck), logger);
  await r.start();
  return r;
}
