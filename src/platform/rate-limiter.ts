/**
 * Client-side rate limiter: a sliding-window log of `max` slots, served in arrival order. A slot's window
 * starts when its call *completes* (the caller invokes the release function), not when it is sent: the
 * platform counts a request on arrival, which is after the send but before the answer, so timing from the
 * answer guarantees that no `durationMs` window on the platform side ever holds more than `max` requests,
 * whatever the queueing or network jitter. The cost is one round-trip per window (≈98% of the limit at
 * 20 ms latency and a 1 s window).
 */
import { setTimeout as sleep } from "node:timers/promises";

/** Rate limit settings: at most `max` calls per `durationMs`. */
export interface RateLimitOptions {
  max: number;
  durationMs: number;
}

interface Slot {
  /** When the call that last used the slot completed. */
  doneAt: number;
  /** Set while a call holds the slot. */
  busy: Promise<void> | null;
}

/** Anything that hands out permission to send one call, and takes back the release when it completed. */
export interface CallLimiter {
  acquire(): Promise<() => void>;
}

/** A FIFO sliding-window limiter whose slots free on completion. */
export class RateLimiter implements CallLimiter {
  private readonly slots: Slot[];
  private next = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly options: RateLimitOptions) {
    if (!(options.max >= 1 && options.durationMs > 0)) throw new RangeError("rateLimit needs max >= 1 and durationMs > 0");
    this.slots = Array.from({ length: options.max }, () => ({ doneAt: -Infinity, busy: null }));
  }

  /** Resolves when one more call may be sent now, with the function to call once it completed. */
  acquire(): Promise<() => void> {
    const turn = this.chain.then(async () => {
      const slot = this.slots[this.next];
      this.next = (this.next + 1) % this.options.max;
      for (;;) {
        if (slot.busy) await slot.busy;
        // timers may fire a little early: loop until the slot's window has really passed
        const wait = slot.doneAt + this.options.durationMs - performance.now();
        if (wait <= 0) break;
        await sleep(Math.ceil(wait));
      }
      let free!: () => void;
      slot.busy = new Promise<void>((resolve) => (free = resolve));
      let released = false;
      return () => {
        if (released) return;
        released = true;
        slot.doneAt = performance.now();
        slot.busy = null;
        free();
      };
    });
    this.chain = turn;
    return turn;
  }
}
