/**
 * The one place that turns the replies of the store's write scripts (commands/*.lua) into results and
 * errors. A write script answers `{status, …}`: "OK" or "NOOP" with the record's meta, or one refusal,
 * each mapped here to its error class (errors.ts). A status no script answers is a bug, thrown as such.
 */
import {
  StoreConflictError, StoreInvalidMemberError, StoreLostCreateError, StoreNotFoundError, StorePreconditionError,
  StoreRetryError, StoreTooManyMembersError, StoreWriteAbandonedError,
} from "./errors";
import type { WriteResult } from "./types";

/** Throws the error a refused write's reply names; returns the reply of a write that ran ("OK", "NOOP"). */
export function acceptedReply(kind: "User" | "Group", id: string, r: string[]): string[] {
  switch (r[0]) {
    case "OK":
    case "NOOP":
      return r;
    case "CONFLICT": throw new StoreConflictError(kind, r[1]);
    case "NOTFOUND": throw new StoreNotFoundError(kind, id);
    case "PRECONDITION": throw new StorePreconditionError(Number(r[1]));
    case "RETRY": throw new StoreRetryError();
    case "INVALID": throw new StoreInvalidMemberError(r.slice(1));
    case "TOOMANY": throw new StoreTooManyMembersError(Number(r[1]));
    case "PRIOR": throw new StoreLostCreateError(r[1]);
    case "ABANDONED": throw new StoreWriteAbandonedError("resent after it was given up");
    default: throw new Error(`unexpected store reply ${r[0]}`);
  }
}

/** A create's or update's reply `{"OK"|"NOOP", version, created, lastModified}` as a WriteResult (or its error). */
export function writeResult(kind: "User" | "Group", id: string, r: string[]): WriteResult {
  const [status, version, created, lastModified] = acceptedReply(kind, id, r);
  return { changed: status === "OK", version: Number(version), created, lastModified };
}
