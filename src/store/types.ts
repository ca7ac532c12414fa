/** Shapes the store reads and writes. Bodies are SCIM resource bodies without `id`, `meta` and `members`. */

export type Json = Record<string, unknown>;

/** Version and timestamps the store keeps for every resource. */
export interface StoredMeta {
  version: number;
  created: string;
  lastModified: string;
}

/** A group a user belongs to, as the store knows it. */
export interface MembershipRef {
  value: string;
  display: string;
}

/** One user as stored. */
export interface UserRecord extends StoredMeta {
  id: string;
  body: Json;
  groups: MembershipRef[];
}

/** One member of a group. */
export interface MemberRecord {
  value: string;
  display?: string;
  type: "User" | "Group";
}

/** One group as stored; `members` only when asked for. */
export interface GroupRecord extends StoredMeta {
  id: string;
  body: Json;
  memberCount: number;
  members?: MemberRecord[];
}

/** A membership change: applied in order, as set deltas. */
export interface MemberOp {
  op: "add" | "remove" | "clear" | "replace";
  members: Array<{ value: string; display?: string }>;
}

/** Result of a write: whether anything changed, and the meta after it. */
export interface WriteResult extends StoredMeta {
  changed: boolean;
  /** Group writes with `skipUnknownMembers`: the member values left out because they name nothing. */
  skippedMembers?: string[];
}

/** Per-directory rules a write follows. */
export interface WriteOptions {
  /** `uniqueness.externalId`: refuse an externalId another resource of the same kind has (RFC 7643 gives it none). */
  uniqueExternalId?: boolean;
  /**
   * Group writes: member values to add that name no user or group of the directory are left out (and
   * listed in the result) instead of refusing the write; off in a `strict` directory.
   */
  skipUnknownMembers?: boolean;
  /**
   * User creates: the fingerprint (SHA-256) of the create's body, whose lost-create record the write checks
   * in the same script (scim/lost-creates/); the write is refused with StoreLostCreateError when it names
   * another id.
   */
  lostCreate?: string;
}
