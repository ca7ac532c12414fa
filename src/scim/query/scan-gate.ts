/**
 * At most N scans of one directory at a time in this process. A scan (a filter no index answers) reads
 * the directory slice by slice; however small the slices, fifty of them interleaved would still hold the
 * event loop and Redis for fifty slices between two requests of another directory. Further scans of the
 * same directory wait their turn (first come, first served); other directories are not affected.
 */

/** Per-directory counting semaphore. */
export class ScanGate {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly perDirectory: number) {}

  /** Runs `fn` once fewer than `perDirectory` scans of `directoryId` are running. */
  async run<T>(directoryId: string, fn: () => Promise<T>): Promise<T> {
    if ((this.active.get(directoryId) ?? 0) >= this.perDirectory) {
      await new Promise<void>((resolve) => {
        const queue = this.waiting.get(directoryId) ?? [];
        queue.push(resolve);
        this.waiting.set(directoryId, queue);
      });
    } else {
      this.active.set(directoryId, (this.active.get(directoryId) ?? 0) + 1);
    }
    try {
      return await fn();
    } finally {
      this.release(directoryId);
    }
  }

  /** Hands the slot to the next waiting scan, or frees it. */
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
