/**
 * A client's connection cap (`platform.maxConnections`): at most `max` of its calls in flight at once;
 * further calls wait in order. The sockets themselves come from a pool shared by every client of the
 * process that talks to the same platform origin (src/platform/platform-pools.ts), so the cap is counted
 * here rather than by the pool: the same throttle as a pool of `max` connections per client, without a pool (its request queue, sockets, parser) per
 * directory. A call that waits for a free slot spends that wait from its timeout, as it did in the pool.
 */

/** Counts a client's calls in flight and queues the ones over its cap. */
export class InFlightCap {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError("maxConnections must be at least 1");
  }

  /** Calls in flight now (tests, diagnostics). */
  get inFlight(): number {
    return this.active;
  }

  /**
   * Resolves with the slot's release once a slot is free; rejects with the signal's reason if `signal`
   * aborts first (the call timed out while it waited), taking nothing.
   */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener("abort", onAbort);
        this.active++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }
}
