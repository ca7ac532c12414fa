/**
 * Writes request-log entries in batches: the entries of one directory answered in the same turn of the
 * event loop go to Redis in one script call (request-log-store.ts appendMany), so a busy directory costs a
 * command per batch, not per request. The batch leaves at the end of the turn (setImmediate), not after a
 * timer: entries held for milliseconds outlive young-generation collections and are copied and promoted
 * (bench/scim request-log: a 25 ms timer cost more in GC than the batching saved). A batch that cannot be written is dropped with a debug line: the log never
 * holds up, nor fails, a SCIM request.
 */
import type { Logger } from "pino";
import type { NewRequestLogEntry } from "./request-log-entry";
import type { RequestLogLimits, RequestLogStore } from "./request-log-store";

/** Entries of one directory written by one call at most. */
const MAX_BATCH = 200;

export class RequestLogWriter {
  private readonly pending = new Map<string, { entries: NewRequestLogEntry[]; limits: RequestLogLimits }>();
  private scheduled = false;

  constructor(private readonly store: RequestLogStore, private readonly logger: Logger) {}

  add(dir: string, entry: NewRequestLogEntry, limits: RequestLogLimits): void {
    let batch = this.pending.get(dir);
    if (!batch) this.pending.set(dir, batch = { entries: [], limits });
    batch.entries.push(entry);
    batch.limits = limits;
    if (batch.entries.length >= MAX_BATCH) this.write(dir);
    else if (!this.scheduled) { this.scheduled = true; setImmediate(() => this.flush()); }
  }

  /** Writes everything pending now. */
  flush(): void {
    this.scheduled = false;
    for (const dir of [...this.pending.keys()]) this.write(dir);
  }

  private write(dir: string): void {
    const batch = this.pending.get(dir);
    this.pending.delete(dir);
    if (!batch?.entries.length) return;
    this.store.appendMany(dir, batch.entries, batch.limits).catch((err: Error) => {
      this.logger.debug({ err: { message: err.message }, directory: dir, entries: batch.entries.length }, "SCIM request log entries not written");
    });
  }
}
