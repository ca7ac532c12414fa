/**
 * The check of a directory's platform key when a worker starts: a key that does not work stops the
 * directory now rather than item by item, and the outcome is recorded for the operator surface.
 */
import type { Logger } from "pino";
import type { DirectoryConfig } from "../config/schema";
import { AuthError, ScopeError, type PlatformClient } from "../platform";
import type { SyncStateStore } from "../store";
import { unauthorizedReason, unscopedReason } from "./pause-reason";

/** Verifies the key in the background; records "ok", "401: …", "403: …" or "unverified: …" and pauses on 401/403. */
export function checkDirectoryKey(
  platform: PlatformClient, dir: DirectoryConfig, state: SyncStateStore, pause: (reason: string) => Promise<void>, log: Logger,
): void {
  const checked = (keyStatus: string) => state.setMeta(dir.id, { keyStatus, keyCheckedAt: new Date().toISOString() });
  platform.verifyKey().then(() => checked("ok"), async (err: Error) => {
    if (err instanceof AuthError) {
      await checked(`401: ${err.message}`);
      await pause(unauthorizedReason(err.message));
    } else if (err instanceof ScopeError) {
      await checked(`403: ${err.message}`);
      await pause(unscopedReason(dir.platform.deploymentId, err.message));
    } else {
      await checked(`unverified: ${err.message}`);
      log.warn({ err: { message: err.message } }, "could not verify the platform key at start");
    }
  }).catch(() => undefined);
}
