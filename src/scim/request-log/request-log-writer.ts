/**
 * Writes request-log entries in batches: the entries of one directory answered in the same turn of the
 * event loop go to Redis in one script call (request-log-store.ts appendMany), so a busy directory costs a
 * command per batch, not per request. The batch leaves at the end of the turn (setImmediate), not after a
 * timer: entries held for milliseconds outlive young-generation collections and are copied and promoted.
 * While a directory's batch is being written, its next entries wait for that write to answer and then go
 * together (at most MAX_BATCH wait: past it they are written at once), so under load the batches grow with
 * the load instead of the calls. A batch that cannot be written is dropped with a debug line: the log never
 * holds up, nor fails, a SCIM request.
 */
import type { Logger } from "pino";
import type { NewRequestLogEntry } from "./request-log-entry";
import type { RequestLogLimits, RequestLogStore } from "./request-log-store";

/** Entries of one directory written by one call at most. */
const MAX_BATCH = 200;

export class RequestLogWriter {
  private readonly pending = new Map<string, { entries: NewRequestLogEntry[]; limits: RequestLogLimits }>();
  /** Directories with a batch being written. */
  private readonly writing = new Set<string>();
  private scheduled = false;

  constructor(private readonly store: RequestLogStore, private readonly logger: Logger) {}

  add(dir: string, entry: NewRequestLogEntry, limits: RequestLogLimits): void {
    let batch = this.pending.get(dir);
    if (!batch) this.pending.set(dir, batch = { entries: [], limits });
    batch.entries.push(entry);
    batch.limits = limits;
    if (batch.entries.length >= MAX_BATCH) this.write(dir);
    else this.schedule();
  }

  /** Writes everything pending now, also for a directory whose previous batch is still being written. */
  flush(): void {
    this.scheduled = false;
    for (const dir of [...this.pending.keys()]) this.write(dir);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const dir of [...this.pending.keys()]) if (!this.writing.has(dir)) this.write(dir);
    });
  }

  private write(dir: string): void {
    const batch = this.pending.get(dir);
    this.pending.delete(dir);
    if (!batch?.entries.length) return;
    this.writing.add(dir);
    this.store.appendMany(dir, batch.entries, batch.limits).catch((err: Error) => {
      this.logger.debug({ err: { message: err.message }, directory: dir, entries: batch.entries.length }, "SCIM request log entries not written");
    }).finally(() => {
      this.writing.delete(dir);
      if (this.pending.has(dir)) this.schedule();
    });
  }
}
