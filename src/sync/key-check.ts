/**
 * A directory's platform health: its key is verified when a worker starts (a key that does not work stops
 * the directory now rather than item by item), re-verified every `sync.keyCheckIntervalMs`, and marked
 * healthy again by any successful platform call — so a key left "unverified" by a platform hiccup at start
 * recovers without a restart (issue 9 item 3). The worker runs `check` for every directory from one timer
 * (src/sync/directory-rounds.ts). The outcome is recorded in the directory's sync meta
 * (`keyStatus`, `keyCheckedAt`) for the admin API, the status page and /metrics.
 */
import type { Logger } from "pino";
import type { DirectoryConfig } from "../config/schema";
import { AuthError, ScopeError, type PlatformClient } from "../platform";
import type { SyncStateStore } from "../store";
import { unauthorizedReason, unscopedReason } from "./pause-reason";

/** True for a recorded key status that says the platform works for the directory. */
export function platformHealthy(keyStatus: string | undefined): boolean {
  return keyStatus === "ok";
}

/** Successful calls mark the directory healthy at most this often (one Redis write), or at once after trouble. */
const SUCCESS_WRITE_MS = 10000;

/** Verifies a directory's key now, periodically, and records successes of its calls. */
export class KeyMonitor {
  private last?: string;
  private lastWrite = 0;

  constructor(
    private readonly platform: PlatformClient, private readonly dir: DirectoryConfig, private readonly state: SyncStateStore,
    private readonly pause: (reason: string) => Promise<void>, private readonly log: Logger,
  ) {}

  private record(keyStatus: string): Promise<void> {
    this.last = keyStatus;
    this.lastWrite = Date.now();
    return this.state.setMeta(this.dir.id, { keyStatus, keyCheckedAt: new Date().toISOString() }).catch(() => undefined);
  }

  /** Verifies the key; records "ok", "401: …", "403: …" or "unverified: …" and pauses on 401/403. */
  async check(): Promise<void> {
    try {
      await this.platform.verifyKey();
      await this.record("ok");
    } catch (e) {
      const err = e as Error;
      if (err instanceof AuthError) {
        await this.record(`401: ${err.message}`);
        await this.pause(unauthorizedReason(err.message)).catch(() => undefined);
      } else if (err instanceof ScopeError) {
        await this.record(`403: ${err.message}`);
        await this.pause(unscopedReason(this.dir.platform.deploymentId, err.message)).catch(() => undefined);
      } else {
        await this.record(`unverified: ${err.message}`);
        this.log.warn({ err: { message: err.message } }, "could not verify the platform key");
      }
    }
  }

  /** A platform call of the directory succeeded (2xx): the platform works for it. */
  succeeded(): void {
    if (this.last === "ok" && Date.now() - this.lastWrite < SUCCESS_WRITE_MS) return;
    void this.record("ok");
  }
}
