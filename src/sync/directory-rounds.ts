/**
 * One timer per worker process for a chore every directory needs now and then (re-verifying its platform
 * key, queueing its transient failures again): each round visits the registered directories, a few at a
 * time, instead of a timer per directory (1,000 directories were 1,000 timers each firing on its own).
 * A round that is still running when the next is due is not doubled: the next starts after it.
 */
import { inLanes } from "./lanes";

/** Runs `visit` for every registered directory every `intervalMs`, at most `parallel` at once. */
export class DirectoryRounds<T> {
  private readonly items = new Map<string, T>();
  /** Directories to visit before the next round (newly added), in order. */
  private readonly soon = new Set<string>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly visit: (item: T, id: string) => Promise<unknown>,
    private readonly parallel = 8,
  ) {}

  /** Registers a directory; `now`: visit it soon (in the background) rather than at the next round. */
  add(id: string, item: T, now = false): void {
    this.items.set(id, item);
    if (!now) return;
    this.soon.add(id);
    void this.kick();
  }

  remove(id: string): void {
    this.items.delete(id);
    this.soon.delete(id);
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.kick(true), this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Runs a round now (all directories) and resolves when it is done (tests, diagnostics). */
  async runOnce(): Promise<void> {
    await this.running;
    await this.round([...this.items.keys()]);
  }

  /** Resolves once no round runs and no added directory waits for its visit (tests, diagnostics). */
  async settled(): Promise<void> {
    while (!this.stopped && (this.running || this.soon.size)) {
      await (this.running ?? new Promise<void>((resolve) => setImmediate(resolve)));
    }
  }

  /** Starts the due work unless a round is running (that round picks the `soon` ones up when it ends). */
  private async kick(all = false): Promise<void> {
    if (this.running) {
      if (all) for (const id of this.items.keys()) this.soon.add(id);
      return;
    }
    const ids = all ? [...this.items.keys()] : [...this.soon];
    this.soon.clear();
    this.running = this.round(ids).finally(() => { this.running = undefined; });
    await this.running;
    if (this.soon.size && !this.stopped) await this.kick();
  }

  private async round(ids: string[]): Promise<void> {
    await inLanes(ids, this.parallel, async (id) => {
      this.soon.delete(id);
      const item = this.items.get(id);
      if (item !== undefined) await this.visit(item, id).catch(() => undefined);
    }, () => this.stopped);
  }
}
