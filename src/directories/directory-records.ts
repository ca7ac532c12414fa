/**
 * The directory registry's records in Redis (layout in registry-keys.ts): runtime directories, the
 * disabled flag, credentials (hashes only) and their last use. Every write publishes the directory's id on
 * the change channel so every server and worker reloads at once.
 *
 * With `replicaAck` (the server role, `redis.replicaAck`), the operator's changes run on its connection
 * and are answered once replicas hold them, like SCIM writes (replica-ack.ts): a failover must not bring
 * back a token the operator was told is revoked, or lose a directory whose SCIM URL was handed out. Last
 * use and OAuth access tokens are left out: losing one costs a later write, or the IdP one more token call.
 */
import { nodeFor, RedisUnavailableError, type RedisConnection } from "../store/connection";
import type { ReplicaAck } from "../store/replica-ack";
import { RegistryKeys } from "./registry-keys";

/** A runtime directory as stored. `input` is the config-file form of the directory, without tokenHashes. */
export interface DirectoryRecord {
  input: Record<string, unknown>;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
  /**
   * Set while the directory is being deleted with `platform=deprovision` (src/directories/deprovision.ts):
   * `running` — a worker serves the disabled directory for its deprovision run only (planned, held for
   * the operator's confirmation, then applied); `purging` — the platform side is done, workers let go of
   * it and its keys are purged next.
   */
  deprovision?: { stage: "running" | "purging"; requestedBy: string; requestedAt: string; resync: string };
}

/** One entry of the directories' audit list (deletes with their platform choice, deprovision answers). */
export interface DirectoryAuditEntry {
  action: "deprovision-requested" | "deprovision-confirmed" | "deprovision-cancelled" | "deleted";
  directory: string;
  by: string;
  at: string;
  /** Platform users and groups concerned (held, confirmed, cancelled, or deprovisioned when deleted). */
  count: number;
  platform?: "leave" | "deprovision";
  deletedKeys?: number;
}

/** Audit entries kept (newest first). */
const AUDIT_MAX = 1000;

export type CredentialKind = "token" | "client-secret";

/** A credential as stored: its SHA-256, never the secret. */
export interface CredentialRecord {
  id: string;
  kind: CredentialKind;
  label: string;
  hash: string;
  createdAt: string;
  expiresAt?: string;
}

/** Everything the registry loads in one round trip. */
export interface RegistrySnapshot {
  runtime: Map<string, DirectoryRecord>;
  disabledConfig: Set<string>;
  credentials: Map<string, CredentialRecord[]>;
}

function parseJson<T>(s: string): T | undefined {
  try { return JSON.parse(s) as T; } catch { return undefined; }
}

/** Reads and writes the registry records. */
export class DirectoryRecords {
  readonly keys: RegistryKeys;
  /** Where the operator's changes run: `redis`, or the replica-acknowledged connection of `replicaAck`. */
  private readonly writer: RedisConnection;

  constructor(readonly redis: RedisConnection, keyPrefix: string, private readonly replicaAck?: ReplicaAck) {
    this.keys = new RegistryKeys(keyPrefix);
    this.writer = replicaAck?.connection ?? redis;
  }

  /**
   * Resolves once replicas hold the writes made so far on the node of `key` (at once without
   * `replicaAck`); rejects with StoreNotReplicatedError otherwise.
   */
  private async replicated(key: string): Promise<void> {
    await this.replicaAck?.confirm(key);
  }

  /** Runtime directories, disabled config directories and the credentials of `ids` (plus every runtime id). */
  async snapshot(configIds: string[]): Promise<RegistrySnapshot> {
    const [raw, disabled] = await Promise.all([this.redis.hgetall(this.keys.directories), this.redis.smembers(this.keys.disabledConfig)]);
    const runtime = new Map<string, DirectoryRecord>();
    for (const [id, json] of Object.entries(raw)) {
      const rec = parseJson<DirectoryRecord>(json);
      if (rec) runtime.set(id, rec);
    }
    const ids = [...new Set([...configIds, ...runtime.keys()])];
    // one command per directory: each directory's credentials are in its own cluster slot, and an ioredis
    // Cluster pipeline may not span slots of several nodes (sent together all the same)
    const res = await Promise.all(ids.map((id) => this.redis.hgetall(this.keys.credentials(id))));
    const credentials = new Map<string, CredentialRecord[]>();
    ids.forEach((id, i) => {
      const h = res[i] ?? {};
      credentials.set(id, Object.values(h).map((j) => parseJson<CredentialRecord>(j)).filter((c): c is CredentialRecord => !!c)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt)));
    });
    return { runtime, disabledConfig: new Set(disabled), credentials };
  }

  async get(id: string): Promise<DirectoryRecord | undefined> {
    const json = await this.redis.hget(this.keys.directories, id);
    return json ? parseJson<DirectoryRecord>(json) : undefined;
  }

  /** Creates a runtime directory; false when the id is taken. */
  async create(id: string, rec: DirectoryRecord): Promise<boolean> {
    const ok = await this.writer.hsetnx(this.keys.directories, id, JSON.stringify(rec));
    if (ok) await this.changed(id);
    // a refusal too: the record it was refused on may not be replicated either
    await this.replicated(this.keys.directories);
    return ok === 1;
  }

  async put(id: string, rec: DirectoryRecord): Promise<void> {
    await this.writer.hset(this.keys.directories, id, JSON.stringify(rec));
    await this.changed(id);
    await this.replicated(this.keys.directories);
  }

  /** Disables or enables a config-file directory. */
  async setConfigDisabled(id: string, disabled: boolean): Promise<void> {
    if (disabled) await this.writer.sadd(this.keys.disabledConfig, id);
    else await this.writer.srem(this.keys.disabledConfig, id);
    await this.changed(id);
    await this.replicated(this.keys.disabledConfig);
  }

  async addCredential(dir: string, c: CredentialRecord): Promise<void> {
    await this.writer.hset(this.keys.credentials(dir), c.id, JSON.stringify(c));
    await this.changed(dir);
    await this.replicated(this.keys.credentials(dir));
  }

  /** Revokes a credential; false when it did not exist. */
  async removeCredential(dir: string, credentialId: string): Promise<boolean> {
    const n = await this.writer.multi().hdel(this.keys.credentials(dir), credentialId).hdel(this.keys.lastUsed(dir), credentialId).exec();
    await this.changed(dir);
    await this.replicated(this.keys.credentials(dir));
    return Number(n?.[0]?.[1] ?? 0) === 1;
  }

  async lastUsed(dir: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.lastUsed(dir));
  }

  async touch(dir: string, credentialId: string, at: string): Promise<void> {
    await this.redis.hset(this.keys.lastUsed(dir), credentialId, at);
  }

  /** Stores an OAuth access token's hash for `ttlSeconds`. */
  async addAccessToken(dir: string, tokenHash: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.keys.accessToken(dir, tokenHash), "1", "EX", ttlSeconds);
  }

  async accessTokenValid(dir: string, tokenHash: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.accessToken(dir, tokenHash))) === 1;
  }

  /** Removes the registry record of a directory (its other keys are purged apart). */
  async remove(id: string): Promise<void> {
    // two commands, not one MULTI: the two keys lie in different slots of a Redis Cluster, where a MULTI
    // across slots is refused ("All keys in the pipeline should belong to the same slots allocation group");
    // an id left in the set by a crash between them names no config directory, and is read as nothing
    await this.writer.hdel(this.keys.directories, id);
    await this.writer.srem(this.keys.disabledConfig, id);
    await this.changed(id);
    await this.replicated(this.keys.directories);
  }

  /** Deletes every key of the directory (SCAN + UNLINK); resolves with how many. */
  async purgeKeys(id: string): Promise<number> {
    const pattern = this.keys.directoryPattern(id);
    // every key of the directory carries its hash tag, so on Redis Cluster they are all on the master of
    // that one slot: SCAN there (sent without a node, SCAN goes to a random master)
    const node = nodeFor(this.writer, pattern);
    if (!node) throw new RedisUnavailableError(`no master is known for the slot of directory "${id}"`);
    let cursor = "0";
    let n = 0;
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length) n += await node.unlink(...keys);
    } while (cursor !== "0");
    await this.replicated(pattern);
    return n;
  }

  /**
   * Appends to the directories' audit list. It lives outside the directory's own keys, so it outlives the
   * purge of a deleted directory.
   */
  async audit(e: DirectoryAuditEntry): Promise<void> {
    await this.writer.multi().lpush(this.keys.audit, JSON.stringify(e)).ltrim(this.keys.audit, 0, AUDIT_MAX - 1).exec();
    await this.replicated(this.keys.audit);
  }

  /** The audit list, newest first (`dir`: only that directory's entries). */
  async readAudit(dir?: string): Promise<DirectoryAuditEntry[]> {
    const all = (await this.redis.lrange(this.keys.audit, 0, AUDIT_MAX - 1)).map((j) => parseJson<DirectoryAuditEntry>(j)).filter((x): x is DirectoryAuditEntry => !!x);
    return dir ? all.filter((x) => x.directory === dir) : all;
  }

  /** Tells every server and worker to reload: at once (the channel), and at their next check (the version). */
  async changed(id: string): Promise<void> {
    await this.writer.incr(this.keys.version);
    await this.writer.publish(this.keys.channel, id);
  }

  /** The registry's change counter (null before the first change). */
  version(): Promise<string | null> {
    return this.redis.get(this.keys.version);
  }
}
