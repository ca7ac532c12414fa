/**
 * Waits for an event of a resource's activity trail (the SCIM app appends after the response is sent).
 */
import { ActivityStore, type ActivityEvent } from "../../src/store";
import type { TestScim } from "./scim-app";

/** The trail of `id` once it holds an event `pred` accepts (newest first); fails after `timeoutMs`. */
export async function waitTrail(s: TestScim, dir: string, id: string, pred: (e: ActivityEvent) => boolean, timeoutMs = 5000, kind: "user" | "group" = "user"): Promise<ActivityEvent[]> {
  const store = new ActivityStore(s.redis, s.prefix);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const trail = await store.read(dir, kind, id);
    if (trail.some(pred)) return trail;
    if (Date.now() > deadline) throw new Error(`no such activity event of ${dir}/${id} within ${timeoutMs} ms: ${JSON.stringify(trail)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs `action` (a request that appends to the trail of `id`) and waits until its event is in the trail. */
export async function withTrailEvent<T>(s: TestScim, dir: string, id: string, action: () => Promise<T>, kind: "user" | "group" = "user"): Promise<T> {
  const store = new ActivityStore(s.redis, s.prefix);
  const newest = async () => JSON.stringify((await store.read(dir, kind, id))[0] ?? null);
  const before = await newest();
  const result = await action();
  await waitTrail(s, dir, id, () => true, 5000, kind);
  const deadline = Date.now() + 5000;
  while ((await newest()) === before) {
    if (Date.now() > deadline) throw new Error(`no new activity event of ${dir}/${id}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return result;
}
