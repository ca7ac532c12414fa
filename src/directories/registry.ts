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
import { createHash, timingSafeEqual } from "node:crypto";
import type { RedisConnection } from "../store/connection";
import type { Logger } from "pino";
import type { Config, DirectoryConfig } from "../config/schema";
import { type ReplicaAck } from "../store";
import { DirectoryRecords, type CredentialKind, type CredentialRecord } from "./directory-records";
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

interface Candidate { hash: Buffer; id?: string; live: boolean; label: string }

const DUMMY = Buffer.alloc(32);
/** Last-use times are written at most this often per credential. */
const TOUCH_EVERY_MS = 60_000;
/** The periodic check loads everything at least this often, whether the change counter moved or not. */
const FULL_RELOAD_MS = 30_000;

function sha256(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

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
  private readonly touched = new Map<string, number>();
  private subscriber?: RedisConnection;
  private timer?: NodeJS.Timeout;
  private chain: Promise<void> = Promise.resolve();
  private queued = false;
  private failing = false;
  /** The change counter the last full load saw, and when that load ran. */
  private loadedVersion: string | null | undefined;
  private loadedAt = 0;

  constructor(private readonly config: Config, readonly records?: DirectoryRecords, private readonly logger?: Logger) {
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

  /**
   * Is `token` a live SCIM credential of directory `id`: a config-file token hash, an unexpired token made
   * through the admin API, or an unexpired OAuth access token of this directory. Every hash is compared
   * in constant time, without an early exit; an expired token fails like a wrong one. A directory that does
   * not exist costs the same work (a dummy comparison, the access-token look-up), so a wrong token's
   * answer time does not tell whether the directory exists.
   */
  async authenticate(id: string, token: string | undefined): Promise<boolean> {
    return (await this.authenticateAs(id, token)) !== undefined;
  }

  /** As `authenticate`, resolving with the token's name (see `tokenLabel`) when it is valid, else undefined. */
  async authenticateAs(id: string, token: string | undefined): Promise<string | undefined> {
    const entry = this.entries.get(id);
    const match = this.match(entry, "token", token);
    if (match) {
      if (match.id) this.touch(id, match.id);
      return match.label;
    }
    if (token === undefined || !this.records) return undefined;
    // the same Redis look-up whether the directory exists or not: the answer's timing must not tell
    const valid = await this.records.accessTokenValid(id, sha256(token).toString("hex"));
    return entry && valid ? "OAuth access token" : undefined;
  }

  /**
   * The name of the token `token` is among directory `id`'s, for the request log: a config-file token by
   * its place, a token made by the admin API by its label (marked when expired), else "unknown token"
   * (an OAuth access token, which is not kept by hash here, shows as such when `authenticated`).
   */
  tokenLabel(id: string, token: string | undefined, authenticated: boolean): string {
    if (token === undefined) return "no token";
    const entry = this.entries.get(id);
    const digest = sha256(token);
    const hashes = entry?.dir.tokenHashes ?? [];
    for (let i = 0; i < hashes.length; i++) if (timingSafeEqual(Buffer.from(hashes[i], "hex"), digest)) return `config token #${i + 1}`;
    for (const c of entry?.credentials ?? []) {
      if (c.kind !== "token" || !timingSafeEqual(Buffer.from(c.hash, "hex"), digest)) continue;
      const expired = !!c.expiresAt && Date.parse(c.expiresAt) <= Date.now();
      return `${c.label || c.id}${expired ? " (expired)" : ""}`;
    }
    return authenticated ? "OAuth access token" : "unknown token";
  }

  /** The live client secret of directory `clientId` that `secret` is, if any (OAuth client authentication). */
  authenticateClient(clientId: string, secret: string | undefined): boolean {
    const match = this.match(this.entries.get(clientId), "client-secret", secret);
    if (match?.id) this.touch(clientId, match.id);
    return !!match;
  }

  private match(entry: DirectoryEntry | undefined, kind: CredentialKind, secret: string | undefined): Candidate | undefined {
    const now = Date.now();
    const candidates: Candidate[] = [];
    if (entry && kind === "token") entry.dir.tokenHashes.forEach((h, i) => candidates.push({ hash: Buffer.from(h, "hex"), live: true, label: `config token #${i + 1}` }));
    for (const c of entry?.credentials ?? []) {
      if (c.kind === kind) candidates.push({ hash: Buffer.from(c.hash, "hex"), id: c.id, live: !c.expiresAt || Date.parse(c.expiresAt) > now, label: c.label || c.id });
    }
    const digest = sha256(secret ?? "");
    let found: Candidate | undefined;
    for (const c of candidates) {
      const eq = timingSafeEqual(c.hash, digest);
      if (eq && c.live && !found) found = c;
    }
    if (candidates.length === 0) timingSafeEqual(DUMMY, digest);
    return secret === undefined ? undefined : found;
  }

  /** Records a credential's last use (at most once a minute per credential; never blocks the request). */
  private touch(dir: string, credentialId: string): void {
    if (!this.records) return;
    const key = `${dir}\0${credentialId}`;
    const now = Date.now();
    if (now - (this.touched.get(key) ?? 0) < TOUCH_EVERY_MS) return;
    this.touched.set(key, now);
    this.records.touch(dir, credentialId, new Date(now).toISOString()).catch(() => this.touched.delete(key));
  }
}

/**
 * A registry on RedisConnection, started. `replicaAck`: the operator's changes wait for replicas
 * (store/directory-records.ts).
 */
export async function startRegistry(config: Config, redis: RedisConnection, logger?: Logger, replicaAck?: ReplicaAck): Promise<DirectoryRegistry> {
  const r = new DirectoryRegistry(config, new DirectoryRecords(redis, config.redis.keyPrefix, replicaAck), logger);
  await r.start();
  return r;
}
