/**
 * Waits for an event of a resource's activity trail (the SCIM app appends after the response is sent).
 */
import { ActivityStore, type ActivityEvent } from "../../src/store";
import type { TestScim } from "./scim-app";

/** The trail of `id` once it holds an event `pred` accepts (newest first); fails after `timeoutMs`. */
export async function waitTrail(s: TestScim, dir: string, id: string, pred: (e: ActivityEvent) => boolean, timeoutMs = 5000): Promise<ActivityEvent[]> {
  const store = new ActivityStore(s.redis, s.prefix);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const trail = await store.read(dir, "user", id);
    if (trail.some(pred)) return trail;
    if (Date.now() > deadline) throw new Error(`no such activity event of ${dir}/${id} within ${timeoutMs} ms: ${JSON.stringify(trail)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
