/**
 * Which resource a platform call is made for. The platform client of a directory is shared by every
 * reconcile running at once, so the processor runs each reconcile inside its own scope
 * (AsyncLocalStorage) and the client's per-call hook adds the call to the scope it runs in.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ActivityEvent } from "../store";

const storage = new AsyncLocalStorage<ActivityEvent[]>();

/** Runs `fn` collecting the platform calls it makes into `events`. */
export function collectActivity<T>(events: ActivityEvent[], fn: () => Promise<T>): Promise<T> {
  return storage.run(events, fn);
}

/** Adds an event to the running scope (no scope: nothing, e.g. the key check at start). */
export function noteActivity(e: Omit<ActivityEvent, "at">): void {
  storage.getStore()?.push({ ...e, at: new Date().toISOString() } as ActivityEvent);
}
