/**
 * Waiting for a condition that another process or a later tick makes true: the one polling loop tests
 * share, so each waits for the event it needs rather than a fixed time.
 */

/** Polls `fn` until it returns a truthy value (returned) or `timeoutMs` passes (throws with the last value). */
export async function waitFor<T>(fn: () => Promise<T> | T, timeoutMs = 15000, what = "condition"): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await fn();
    if (last) return last as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
