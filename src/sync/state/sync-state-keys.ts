/**
 * Keys of the sync state (src/sync/state/sync-state.ts) and of the directory's shared platform-call rate window
 * (src/sync/platform-calls/rate-window-store.ts), under the directory's hash tag like its data
 * (P = `<keyPrefix>:{<directoryId>}:`):
 *
 *   P s:<k>:<id>      HASH  one resource's sync state (<k>: "u" user, "g" group)
 *   P s:gm:<id>       SET   member ids whose membership of group <id> is applied on the platform
 *   P s:gms:<id>      SET   a replacement of s:gm:<id> staged in slices, swapped in by one call (member-delta.ts)
 *   P s:gch:<id>      HASH  member id → change number: members whose membership of group <id> changed since
 *                           its last reconcile (earlier releases: ZSET s:gc:<id>, merged by the group's next
 *                           reconcile, groupMemberDelta-n.lua)
 *   P s:st:<status>   SET   "<k>:<id>" of every resource in that status
 *   P s:meta          HASH  directory-level: paused (reason), pausedAt, lastSyncAt, keyStatus, keyCheckedAt, keyFingerprint
 *   P s:key-check:<f> STRING the worker checking the directory's platform key <f> (a fingerprint) now; deleted
 *                           after the check, expires if its worker dies (one check of a key at a time)
 *   P s:embed-groups  SET   embed-tenant group names the bridge has applied
 *   P s:rate          ZSET  the directory's platform-call rate window (call tokens scored by time, ms)
 */
import { DirectoryKeys } from "../../store/keys";
import type { SyncKind, SyncStatus } from "./sync-state";

/** "u" | "g": the kind as it appears in keys and status-set members. */
export function kindCode(kind: SyncKind): string {
  return kind === "user" ? "u" : "g";
}

/** Key builder of one directory's sync state. */
export class SyncStateKeys {
  private readonly p: string;
  constructor(keyPrefix: string, directoryId: string) {
    this.p = new DirectoryKeys(keyPrefix, directoryId).prefix;
  }
  record(kind: SyncKind, id: string): string { return `${this.p}s:${kindCode(kind)}:${id}`; }
  appliedMembers(groupId: string): string { return `${this.p}s:gm:${groupId}`; }
  stagedMembers(groupId: string): string { return `${this.p}s:gms:${groupId}`; }
  changedMembers(groupId: string): string { return `${this.p}s:gch:${groupId}`; }
  /** Earlier releases' changed members of group <id> (a ZSET), until the group's next reconcile merges them. */
  legacyChangedMembers(groupId: string): string { return `${this.p}s:gc:${groupId}`; }
  status(status: SyncStatus): string { return `${this.statusPrefix}${status}`; }
  /** What every status set's key starts with (scripts append the status). */
  get statusPrefix(): string { return `${this.p}s:st:`; }
  get meta(): string { return `${this.p}s:meta`; }
  keyCheck(fingerprint: string): string { return `${this.p}s:key-check:${fingerprint}`; }
  get embedGroups(): string { return `${this.p}s:embed-groups`; }
  get rateWindow(): string { return `${this.p}s:rate`; }
}
