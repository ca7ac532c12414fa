/**
 * Keys of a directory's SCIM request log (request-log-store.ts), under the directory's own hash tag:
 *
 *   <kp>:{<dir>}:rl        STREAM  one entry per SCIM request: r = request id, s = size, d = the entry (JSON)
 *   <kp>:{<dir>}:rl:ids    HASH    request id → entry id, and ":bytes" → the log's size
 *
 * Both expire once the directory has logged nothing for its retention (requestLog.maxAgeDays).
 */
import { DirectoryKeys } from "../../store";

export class RequestLogKeys {
  constructor(private readonly keyPrefix: string) {}
  log(dir: string): string { const p = new DirectoryKeys(this.keyPrefix, dir).prefix; return `${p}rl`; }
  index(dir: string): string { return `${this.log(dir)}:ids`; }
}
