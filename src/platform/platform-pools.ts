/**
 * The keep-alive connection pools of one process's platform clients: one undici Pool per platform origin,
 * shared by every client (every directory) that talks to it. A Pool per directory cost ~16 KiB of request
 * queue alone, plus its sockets and parsers: at 1,000 directories that would be the largest part of a
 * worker's heap. Each client still holds its own connection cap
 * (src/platform/in-flight-cap.ts); the shared pool opens at most as many sockets as calls are in flight at
 * once, which the shard workers' concurrency bounds. Timeouts are per call (each directory has its own).
 */
import { Pool } from "undici";

/** How long an idle pooled connection is kept open. */
const KEEP_ALIVE_MS = 30_000;

/** Pools by origin, counted by the clients using them; a pool closes when its last client closes. */
export class PlatformPools {
  private readonly pools = new Map<string, { pool: Pool; clients: number }>();

  /** The pool of `origin` (opened on first use), counted as used by one more client. */
  acquire(origin: string): Pool {
    let entry = this.pools.get(origin);
    if (!entry) {
      // pipelining 1: one call per connection at a time, as the per-directory pools had
      entry = { pool: new Pool(origin, { connections: null, pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS }), clients: 0 };
      this.pools.set(origin, entry);
    }
    entry.clients++;
    return entry.pool;
  }

  /** One client of `origin` is done; the pool closes with its last client. */
  async release(origin: string): Promise<void> {
    const entry = this.pools.get(origin);
    if (!entry || --entry.clients > 0) return;
    this.pools.delete(origin);
    await entry.pool.close();
  }

  /** Origins with an open pool (tests, diagnostics). */
  origins(): string[] {
    return [...this.pools.keys()];
  }

  /** Closes every pool (the process is stopping). */
  async close(): Promise<void> {
    const all = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(all.map((e) => e.pool.close()));
  }
}
