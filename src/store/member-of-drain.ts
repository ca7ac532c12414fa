/**
 * Keeps the queue of pending reverse-index changes (`<P>mgq`, see commands/includes/drainMemberOf.lua)
 * short, off the request path: after a group write that changed members, the store asks for a drain of
 * that directory and answers without waiting for it. One drain runs per directory at a time; a request
 * made meanwhile makes it go round again. Each round is one script that applies up to BUDGET member
 * changes, so a long queue never blocks Redis for long. Correctness never depends on it: every script
 * that reads the reverse index applies what is still pending first.
 */
import type { RedisConnection } from "./connection";
import type { StoreCommands } from "./scripts";
import { DirectoryKeys } from "./keys";

/**
 * Member changes one drain round applies (one script; see includes/drainMemberOf.lua). Under bench/scim's
 * 256-member PATCHes the rounds SLOWLOG caught (over 2 ms) took 5 ms (median); rounds of 64 entries took
 * 34 ms (median, 90 ms at most), holding every other client of that Redis back meanwhile.
 */
const BUDGET = 1024;

/** `<P>mgq`: the directory's queue of reverse-index changes not yet applied. */
export function memberOfQueue(k: DirectoryKeys): string {
  return `${k.prefix}mgq`;
}

export class MemberOfDrain {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  constructor(private readonly redis: RedisConnection & StoreCommands, private readonly keyPrefix: string) {}

  /** Starts (or re-arms) the drain of one directory; never throws, never waits. */
  request(directoryId: string): void {
    if (this.running.has(directoryId)) { this.again.add(directoryId); return; }
    const run = this.loop(directoryId).catch(() => undefined).finally(() => this.running.delete(directoryId));
    this.running.set(directoryId, run);
  }

  /** Drains one directory completely (start-up, tests); resolves when its queue is empty. */
  async drain(directoryId: string): Promise<void> {
    const k = new DirectoryKeys(this.keyPrefix, directoryId);
    while (Number(await this.redis.drainMemberOf(memberOfQueue(k), k.prefix, String(BUDGET))) > 0) { /* next round */ }
  }

  /** Resolves when no drain is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
  }

  private async loop(directoryId: string): Promise<void> {
    do {
      this.again.delete(directoryId);
      await this.drain(directoryId);
    } while (this.again.has(directoryId));
  }
}
