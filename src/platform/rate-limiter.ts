/**
 * Client-side rate limiter: a sliding-window log over the last `max` send times, so that no window of
 * `durationMs` holds more than `max` requests. Callers are served in arrival order. Configure it at (or
 * just under) the platform's limit to run near that limit without tripping it.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rate limit settings: at most `max` calls per `durationMs`. */
export interface RateLimitOptions {
  max: number;
  durationMs: number;
}

/** A FIFO sliding-window limiter. */
export class RateLimiter {
  private readonly times: number[];
  private next = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(readonly options: RateLimitOptions) {
    if (!(options.max >= 1 && options.durationMs > 0)) throw new RangeError("rateLimit needs max >= 1 and durationMs > 0");
    this.times = new Array<number>(options.max).fill(-Infinity);
  }

  /** Resolves when one more call may be sent now. */
  acquire(): Promise<void> {
    const turn = this.chain.then(async () => {
      // timers may fire a little early: loop until the oldest send has really left the window
      for (let wait = this.waitMs(); wait > 0; wait = this.waitMs()) await sleep(Math.ceil(wait));
      this.times[this.next] = performance.now();
      this.next = (this.next + 1) % this.options.max;
    });
    this.chain = turn;
    return turn;
  }

  private waitMs(): number {
    return this.times[this.next] + this.options.durationMs - performance.now();
  }
}
