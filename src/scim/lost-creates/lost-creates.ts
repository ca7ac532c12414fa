/**
 * A create whose answer was lost is not created twice. With Redis stalled past the settle window
 * (src/store/write-settle.ts) a POST is answered 503 although its write may commit once Redis answers
 * again; the IdP retries, and for a group (no uniqueness on displayName, RFC 7643 §4.2) that made a second
 * group of the same name, the one the IdP uses then failed on the platform's name conflict forever.
 *
 * So a POST whose write ended with an unknown outcome leaves a fingerprint — directory, resource kind and
 * a hash of the body as sent (without `password`) → the id it was given — for `scim.lostCreateSeconds`.
 * An identical POST within that window finds it: when that resource exists, it is answered (201, the create
 * the IdP asked for); otherwise the create runs again under the same id, so a late commit of the first
 * attempt and the retry can never make two resources (the later one is refused on the id and answers the
 * resource the other made). The fingerprint is written when Redis answers again (retried in the background
 * within the window, bounded); a process that stops before then loses it, and the retry is an ordinary create.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { StoreConflictError, StoreLostCreateError, StoreNotReplicatedError, StoreWriteAbandonedError } from "../../store/errors";
import { writeOutcomeUnknown } from "../../store/write-settle";
import type { CreateKind, LostCreateStore } from "./lost-create-store";

/** Fingerprints waiting for Redis in one process at most; beyond, a lost create is not remembered. */
const MAX_PENDING = 1000;
/** Pause between two tries to write a fingerprint while Redis does not answer. */
const RETRY_MS = 1000;

/** The fingerprint of a create request body: what the IdP resends identically, secrets left out. */
export function createFingerprint(body: unknown): string {
  const copy = body && typeof body === "object" && !Array.isArray(body) ? { ...(body as Record<string, unknown>) } : body;
  if (copy && typeof copy === "object") {
    for (const k of Object.keys(copy)) if (k.toLowerCase() === "password") delete (copy as Record<string, unknown>)[k];
  }
  return createHash("sha256").update(JSON.stringify(copy ?? null)).digest("hex");
}

/** True when a create's write may have committed although it failed (its answer was lost). */
export function createOutcomeUnknown(err: unknown): boolean {
  return err instanceof StoreNotReplicatedError || writeOutcomeUnknown(err);
}

export class LostCreates {
  private pending = 0;

  constructor(private readonly store: LostCreateStore, private readonly seconds: number, private readonly logger?: Logger) {}

  /**
   * Runs a create of the resource described by `body`: `write(id, fingerprint)` creates it, `exists(id)` reads
   * whether it is there. With `writeChecks`, the write itself checks the fingerprint (given unless the
   * window is 0) in the same script and is refused with StoreLostCreateError when it names another id, so
   * a create is one round trip; otherwise the fingerprint is read here first. Resolves with the id to
   * answer and whether an earlier attempt had created it.
   */
  async create(
    dir: string, kind: CreateKind, body: unknown, exists: (id: string) => Promise<boolean>,
    write: (id: string, fingerprint?: string) => Promise<void>, writeChecks = false,
  ): Promise<{ id: string; earlier: boolean }> {
    if (this.seconds <= 0) {
      const id = randomUUID();
      await write(id);
      return { id, earlier: false };
    }
    const fingerprint = createFingerprint(body);
    let prior: string | undefined;
    if (writeChecks) {
      const id = randomUUID();
      try {
        await write(id, fingerprint);
        return { id, earlier: false };
      } catch (err) {
        if (!(err instanceof StoreLostCreateError)) {
          if (createOutcomeUnknown(err)) this.remember(dir, kind, fingerprint, id);
          throw err;
        }
        prior = err.id;
      }
    } else {
      prior = await this.store.find(dir, kind, fingerprint);
    }
    if (prior && (await exists(prior))) {
      await this.store.confirmReplicated(dir, kind, fingerprint, prior);
      return { id: prior, earlier: true };
    }
    const id = prior ?? randomUUID();
    try {
      await write(id, fingerprint);
    } catch (err) {
      // the first attempt committed meanwhile: its resource is the answer
      if (prior && err instanceof StoreConflictError && err.attribute === "id") {
        await this.store.confirmReplicated(dir, kind, fingerprint, id);
        return { id, earlier: true };
      }
      // another lost create of the same body took the fingerprint meanwhile: nothing was written, and the
      // IdP's next retry finds that one (503 + Retry-After)
      if (err instanceof StoreLostCreateError) throw new StoreWriteAbandonedError("an identical create is under way");
      if (createOutcomeUnknown(err)) this.remember(dir, kind, fingerprint, id);
      throw err;
    }
    // a write that checks the fingerprint deleted it when it committed
    if (prior && !writeChecks) this.store.forget(dir, kind, fingerprint).catch(() => undefined);
    return { id, earlier: false };
  }

  /** Writes the fingerprint once Redis answers, trying again within the window. */
  private remember(dir: string, kind: CreateKind, fingerprint: string, id: string): void {
    if (this.pending >= MAX_PENDING) {
      this.logger?.warn({ directoryId: dir, kind }, "a create whose answer was lost is not remembered: too many waiting for the store");
      return;
    }
    this.pending++;
    const until = Date.now() + this.seconds * 1000;
    const attempt = (): void => {
      this.store.remember(dir, kind, fingerprint, id, (until - Date.now()) / 1000).then(
        () => { this.pending--; this.logger?.info({ directoryId: dir, kind, id }, "a create whose answer was lost is remembered: an identical retry answers it"); },
        () => {
          if (Date.now() + RETRY_MS < until) setTimeout(attempt, RETRY_MS).unref();
          else this.pending--;
        },
      );
    };
    attempt();
  }
}
