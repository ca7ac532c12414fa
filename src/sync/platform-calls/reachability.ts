/**
 * Whether the platform answers a directory's calls, recorded for the operator: the first call with no
 * answer (timeout, refused or reset connection) or a 5xx after a success writes `unreachableSince` into
 * the directory's sync meta (if no worker wrote it already); the next 2xx removes it. So an outage reads
 * "platform unreachable since <time>" on the status page, the CLI, the admin API and /metrics, not
 * "syncing". Each worker writes on a change it sees, and a 2xx clears at most every CLEAR_MS otherwise
 * (another worker may have written the outage), so a healthy directory costs no write per call.
 */
import type { SyncStateStore } from "../state/sync-state";

/** A success re-checks an outage another worker may have recorded at most this often. */
const CLEAR_MS = 10_000;

/** True for a call the platform did not answer as a working service would (no answer, or 5xx). */
export function unanswered(status: number): boolean {
  return status === 0 || status >= 500;
}

/** The reachability record of one directory in one worker process. */
export class PlatformReach {
  private down = false;
  private lastClear = 0;

  constructor(private readonly state: SyncStateStore, private readonly dir: string) {}

  /** Told the status of every platform call of the directory (0: no answer). */
  onCall(status: number, now = Date.now()): void {
    if (unanswered(status)) {
      if (this.down) return;
      this.down = true;
      void this.state.setMetaIfAbsent(this.dir, "unreachableSince", new Date(now).toISOString()).catch(() => { this.down = false; });
    } else if (status >= 200 && status < 300) {
      if (!this.down && now - this.lastClear < CLEAR_MS) return;
      this.down = false;
      this.lastClear = now;
      void this.state.setMeta(this.dir, { unreachableSince: undefined }).catch(() => undefined);
    }
  }
}
