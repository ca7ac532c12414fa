/**
 * Keys of a directory's full resync (src/sync/resync/resync-store.ts), under its hash tag
 * (P = `<keyPrefix>:{<directoryId>}:`), so its scripts (settle, answer) touch one slot:
 *
 *   P resync          HASH    progress of the latest resync (its fields: resync-store.ts)
 *   P resync:pending  SET     "<kind>:<id>" of the resources the running resync still waits for, and
 *                             "confirm:<resync id>" while a confirmation's deprovisions are being queued
 *   P resync:lock     STRING  the running resync's id (EX 6 h): two resyncs of a directory never overlap
 *   P resync:held     HASH    "<kind>:<id>" → plan item: deprovisions held for an operator's confirmation
 *   P resync:plan     STRING  JSON report of the latest dry run (with a TTL)
 *   P resync:audit    LIST    JSON entries of holds, confirmations and cancellations, newest first (100 kept)
 */
import { DirectoryKeys } from "../../store/keys";

export class ResyncKeys {
  readonly progress: string;
  readonly pending: string;
  readonly lock: string;
  readonly held: string;
  readonly plan: string;
  readonly audit: string;
  constructor(keyPrefix: string, directoryId: string) {
    const p = new DirectoryKeys(keyPrefix, directoryId).prefix;
    this.progress = `${p}resync`;
    this.pending = `${p}resync:pending`;
    this.lock = `${p}resync:lock`;
    this.held = `${p}resync:held`;
    this.plan = `${p}resync:plan`;
    this.audit = `${p}resync:audit`;
  }
}
