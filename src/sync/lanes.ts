/**
 * Runs an async step for many items a few at a time (a directory's chores, outbox batches, start-up
 * registration): one slow item never holds up the rest, and a thousand directories are never a thousand
 * concurrent round trips.
 */

/**
 * Runs `visit` for each item in order, at most `lanes` at once. The first error stops new visits and is
 * thrown once the running ones have ended; `stopped` returning true also stops new visits.
 */
export async function inLanes<T>(items: readonly T[], lanes: number, visit: (item: T) => Promise<unknown>, stopped: () => boolean = () => false): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failure && !stopped()) {
      const item = items[next++];
      try {
        await visit(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failure) throw failure.error;
}
