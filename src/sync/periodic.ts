/**
 * A chore run every `intervalMs` that never overlaps itself: a run still going when the next is due makes
 * that tick a no-op. With setInterval alone, a run slower than its interval (a slow Redis, thousands of
 * directories, a cluster) had the next one start beside it, each adding load to the Redis that made it
 * slow. (DirectoryRounds does the same for the per-directory chores.)
 */
export interface Periodic {
  /** Stops the timer; resolves once the run in progress, if any, has ended. */
  stop(): Promise<void>;
}

/** Starts `run` every `intervalMs` (the first after one interval); a failed run is the caller's to report. */
export function periodic(run: () => Promise<unknown>, intervalMs: number): Periodic {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = run().catch(() => undefined).finally(() => { running = undefined; });
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
