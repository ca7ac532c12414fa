/**
 * Concurrency cap of the client: at most `limit` calls in flight; others wait in FIFO order. Timeouts start
 * when a call gets its slot, so queueing never counts against a call's timeout.
 */

/** A counting semaphore. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError("maxConnections must be at least 1");
  }

  /** Resolves once a slot is held; call `release()` exactly once afterwards. */
  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Frees a slot, handing it straight to the next waiter. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /** Calls in flight. */
  get inFlight(): number {
    return this.active;
  }
}
