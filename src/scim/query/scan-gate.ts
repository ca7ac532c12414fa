/**
 * At most N heavy requests of one directory at a time in this process. A heavy request is a scan (a
 * filter no index answers, read slice by slice) or a read of a large group's members: however small the
 * slices, fifty of them interleaved would still hold the event loop and Redis for fifty slices between
 * two requests of another directory. Further heavy requests of the same directory wait their turn (first
 * come, first served), up to a bounded queue; beyond it they are answered 429 with Retry-After, which
 * Okta and Entra ID honour (IDP-DIALECTS O13, E17). Other directories are not affected.
 */
import { ScimError } from "../errors";

/** One directory's share: heavy requests running at once, and waiting. */
export interface HeavyShare {
  running: number;
  queued: number;
}

/** Per-directory counting semaphore with a bounded wait queue. */
export class ScanGate {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();
  private readonly shareOf: (directoryId: string) => HeavyShare;

  /** `share`: the same for every directory (a number: running at once, unbounded queue), or per directory. */
  constructor(share: number | ((directoryId: string) => HeavyShare), private readonly retryAfterSeconds = 5) {
    this.shareOf = typeof share === "number" ? () => ({ running: share, queued: Number.POSITIVE_INFINITY }) : share;
  }

  /** Runs `fn` once fewer than the directory's share of heavy requests are running; 429 when its queue is full. */
  async run<T>(directoryId: string, fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire(directoryId);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /**
   * Takes a slot of `directoryId` (waiting for one), for work that outlives one function call (a response
   * streamed to the socket); the returned function gives it back, once whatever it is called.
   */
  async acquire(directoryId: string): Promise<() => void> {
    const share = this.shareOf(directoryId);
    if ((this.active.get(directoryId) ?? 0) >= share.running) {
      const queue = this.waiting.get(directoryId) ?? [];
      // [RFC6585§4] "The 429 status code indicates that the user has sent too many requests in a given amount of time"
      if (queue.length >= share.queued) {
        throw new ScimError(429, undefined, `Too many heavy requests (filters that need a scan, reads of large groups' members) of directory "${directoryId}" at once; retry after ${this.retryAfterSeconds} s`,
          { "Retry-After": String(this.retryAfterSeconds) });
      }
      await new Promise<void>((resolve) => {
        queue.push(resolve);
        this.waiting.set(directoryId, queue);
      });
    } else {
      this.active.set(directoryId, (this.active.get(directoryId) ?? 0) + 1);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(directoryId);
    };
  }

  /** Hands the slot to the next waiting request, or frees it. */
  private release(directoryId: string): void {
    const queue = this.waiting.get(directoryId);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(directoryId);
    if (next) { next(); return; }
    const n = (this.active.get(directoryId) ?? 1) - 1;
    if (n <= 0) this.active.delete(directoryId);
    else this.active.set(directoryId, n);
  }
}
