/**
 * Waits for an event of a resource's activity trail (the SCIM app appends after the response is sent).
 */
import { ActivityStore, type ActivityEvent } from "../../src/activity/activity-store";
import type { TestScim } from "./scim-app";
import { waitFor } from "./wait-for";

/** The trail of `id` once it holds an event `pred` accepts (newest first); fails after `timeoutMs`. */
export async function waitTrail(s: TestScim, dir: string, id: string, pred: (e: ActivityEvent) => boolean, timeoutMs = 5000, kind: "user" | "group" = "user"): Promise<ActivityEvent[]> {
  const store = new ActivityStore(s.redis, s.prefix);
  let trail: ActivityEvent[] = [];
  await waitFor(async () => (trail = await store.read(dir, kind, id)).some(pred), timeoutMs, `an activity event of ${dir}/${id}`)
    .catch((err: Error) => { throw new Error(`${err.message}; trail: ${JSON.stringify(trail)}`); });
  return trail;
}

/** Runs `action` (a request that appends to the trail of `id`) and waits until its event is in the trail. */
export async function withTrailEvent<T>(s: TestScim, dir: string, id: string, action: () => Promise<T>, kind: "user" | "group" = "user"): Promise<T> {
  const store = new ActivityStore(s.redis, s.prefix);
  const newest = async () => JSON.stringify((await store.read(dir, kind, id))[0] ?? null);
  const before = await newest();
  const result = await action();
  await waitTrail(s, dir, id, () => true, 5000, kind);
  await waitFor(async () => (await newest()) !== before, 5000, `a new activity event of ${dir}/${id}`);
  return result;
}
