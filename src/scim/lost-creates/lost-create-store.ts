/**
 * Fingerprints of creates whose outcome is unknown, in Redis (policy: lost-creates.ts). One short-lived
 * string per fingerprint, in the directory's hash slot (DirectoryKeys.lostCreate):
 *
 *   <kp>:{<dir>}:lc:<u|g>:<sha256 of the body>   STRING  the id the create was given; EX scim.lostCreateSeconds
 *
 * A user's create reads it inside its write script (writeUser-n.lua); a group's reads it here first.
 */
import type { RedisConnection } from "../../store/connection";
import { DirectoryKeys } from "../../store/keys";
import type { ReplicaAck } from "../../store/replica-ack";

export type CreateKind = "u" | "g";

export class LostCreateStore {
  /** `ack`: the replica acknowledgement writes wait for (`redis.replicaAck`), when one is asked for. */
  constructor(private readonly redis: RedisConnection, private readonly keyPrefix: string, private readonly ack?: ReplicaAck) {}

  private key(dir: string, kind: CreateKind, fingerprint: string): string {
    return new DirectoryKeys(this.keyPrefix, dir).lostCreate(kind, fingerprint);
  }

  /** Records that a create of `id` with this fingerprint may have committed, for `seconds`. */
  async remember(dir: string, kind: CreateKind, fingerprint: string, id: string, seconds: number): Promise<void> {
    await this.redis.set(this.key(dir, kind, fingerprint), id, "EX", Math.max(1, Math.ceil(seconds)));
  }

  /** The id of a create with this fingerprint whose outcome was unknown, if one is remembered. */
  async find(dir: string, kind: CreateKind, fingerprint: string): Promise<string | undefined> {
    return (await this.redis.get(this.key(dir, kind, fingerprint))) ?? undefined;
  }

  /**
   * Resolves once replicas hold the create this fingerprint names, as any answered write must with
   * `redis.replicaAck`: one write on the acknowledged connection, then its WAIT (replication keeps the
   * master's order, so the earlier create is covered even when another process made it).
   */
  async confirmReplicated(dir: string, kind: CreateKind, fingerprint: string, id: string): Promise<void> {
    if (!this.ack) return;
    const key = this.key(dir, kind, fingerprint);
    await this.ack.connection.set(key, id, "KEEPTTL", "XX");
    await this.ack.confirm(key);
  }

  async forget(dir: string, kind: CreateKind, fingerprint: string): Promise<void> {
    await this.redis.del(this.key(dir, kind, fingerprint));
  }
}
