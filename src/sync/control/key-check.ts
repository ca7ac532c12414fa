/**
 * A directory's platform health: its key is verified when a worker starts (a key that does not work stops
 * the directory now rather than item by item), re-verified every `sync.keyCheckIntervalMs`, and marked
 * healthy again by any successful platform call — so a key left "unverified" by a platform hiccup at start
 * recovers without a restart. The worker runs `check` for every directory from one timer
 * (src/sync/directory-rounds.ts). The outcome is recorded in the directory's sync meta
 * (`keyStatus`, `keyCheckedAt`, `keyFingerprint`) for the admin API, the status page and /metrics.
 *
 * A key that any worker found working less than `sync.keyCheckIntervalMs` ago (by a check or a successful
 * call) is not checked again: the record names the key by a fingerprint, so a key that changed is checked
 * at once. N workers make one check per directory and interval, not N, and a restart of a worker serving
 * 1,000 directories no longer spends 1,000 platform calls (and the first seconds of every directory's
 * sync) on keys that were proven a minute earlier. While one worker checks a key, it holds a claim on it
 * (`s:key-check:<fingerprint>`), so workers starting together check each key once, not once each.
 */
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { DirectoryConfig } from "../../config/schema";
import { AuthError, ScopeError, type PlatformClient } from "../../platform";
import type { SyncStateStore } from "../state/sync-state";
import { unauthorizedReason, unscopedReason } from "./pause-reason";

import { platformHealthy } from "./platform-health";

export { platformHealthy };

/** Successful calls mark the directory healthy at most this often (one Redis write), or at once after trouble. */
const SUCCESS_WRITE_MS = 10000;

/**
 * Names a directory's platform key in the sync meta without revealing it: a truncated SHA-256 of where the
 * key is used and the key itself (an API key is random enough that the hash cannot be reversed).
 */
export function keyFingerprint(dir: DirectoryConfig, apiKey: string): string {
  return createHash("sha256").update(`${dir.platform.baseUrl}\n${dir.platform.deploymentId}\n${apiKey}`).digest("hex").slice(0, 16);
}

/** Verifies a directory's key now, periodically, and records successes of its calls. */
export class KeyMonitor {
  private last?: string;
  private lastWrite = 0;

  constructor(
    private readonly platform: PlatformClient, private readonly dir: DirectoryConfig, private readonly state: SyncStateStore,
    private readonly pause: (reason: string) => Promise<void>, private readonly log: Logger,
    /**
     * This worker's key (`keyFingerprint`), how long a proof that it works stands (half of
     * `sync.keyCheckIntervalMs`) and the name this worker claims a check under.
     */
    private readonly proof: { fingerprint: string; freshMs: number; holder: string },
  ) {}

  private record(keyStatus: string): Promise<void> {
    this.last = keyStatus;
    this.lastWrite = Date.now();
    return this.state.setMeta(this.dir.id, { keyStatus, keyCheckedAt: new Date().toISOString(), keyFingerprint: this.proof.fingerprint }).catch(() => undefined);
  }

  /** True when the meta records that this same key worked less than `freshMs` ago (checked or used by any worker). */
  private async proven(): Promise<boolean> {
    const meta = await this.state.meta(this.dir.id).catch((): Record<string, string> => ({}));
    const age = Date.now() - Date.parse(meta.keyCheckedAt ?? "");
    if (!platformHealthy(meta.keyStatus) || meta.keyFingerprint !== this.proof.fingerprint || !(age >= 0 && age < this.proof.freshMs)) return false;
    this.last = "ok";
    // the record is that old: the first successful call need not write it again at once
    this.lastWrite = Date.now() - age;
    return true;
  }

  /**
   * Verifies the key unless it was proven lately. A status other than "ok", another key, or no record:
   * checked now, by one worker at a time (the others find its record at their next visit).
   */
  async checkUnlessProven(): Promise<void> {
    if (await this.proven()) return;
    const { fingerprint } = this.proof;
    const claimMs = Math.max(30_000, 2 * this.dir.platform.timeoutMs);
    if (!(await this.state.claimKeyCheck(this.dir.id, fingerprint, this.proof.holder, claimMs).catch(() => true))) return;
    try {
      // a worker that checked and let go between the read above and the claim has recorded its proof
      if (!(await this.proven())) await this.check();
    } finally {
      await this.state.releaseKeyCheck(this.dir.id, fingerprint).catch(() => undefined);
    }
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
