/**
 * Opaque `directory` labels for an unauthenticated /metrics (unauthenticated endpoints reveal no
 * directory ids): `d-` and 12 hex digits of HMAC-SHA256(salt, directory id), where the salt is random,
 * written once to Redis (`<keyPrefix>:metrics:salt`) and so shared by every process of the deployment: a
 * label is stable across processes and restarts, and cannot be guessed from a list of likely ids. The
 * admin API shows each directory's label (`metricsLabel`).
 */
import { createHmac, randomBytes } from "node:crypto";

/** The two Redis commands the salt needs (observability imports nothing from the store). */
export interface SaltStore {
  set(key: string, value: string, nx: "NX"): Promise<unknown>;
  get(key: string): Promise<string | null>;
}

/** Opaque labels of directory ids, salted by the value at `saltKey` (store/keys.ts `metricsSaltKey`). */
export class DirectoryLabels {
  private salt?: Promise<string>;
  constructor(private readonly redis: SaltStore, private readonly saltKey: string) {}

  private getSalt(): Promise<string> {
    this.salt ??= (async () => {
      const key = this.saltKey;
      await this.redis.set(key, randomBytes(32).toString("hex"), "NX");
      const salt = await this.redis.get(key);
      if (!salt) throw new Error("no metrics label salt");
      return salt;
    })().catch((err: Error) => { this.salt = undefined; throw err; });
    return this.salt;
  }

  /** The opaque label of a directory. */
  async label(id: string): Promise<string> {
    return `d-${createHmac("sha256", await this.getSalt()).update(id).digest("hex").slice(0, 12)}`;
  }

  /** Replaces `directory="<id>"` of the known ids in a Prometheus exposition by their labels. */
  async rewrite(text: string, ids: string[]): Promise<string> {
    const labels = new Map(await Promise.all(ids.map(async (id) => [id, await this.label(id)] as const)));
    return text.replace(/directory="([^"]*)"/g, (m, id: string) => (labels.has(id) ? `directory="${labels.get(id)}"` : m));
  }
}
