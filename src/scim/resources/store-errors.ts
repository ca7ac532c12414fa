/** Maps store outcomes to SCIM errors (RFC 7644 §3.12 statuses and scimTypes). */
import {
  StoreConflictError, StoreInvalidMemberError, StoreNotFoundError, StorePreconditionError, StoreTooManyMembersError,
} from "../../store";
import { ScimError } from "../errors";
import { preconditionFailed } from "./conditional";

/** Rethrows a store error as the matching ScimError; anything else unchanged. */
export function toScimError(err: unknown): unknown {
  if (err instanceof StoreConflictError) return new ScimError(409, "uniqueness", `A ${err.kind.toLowerCase()} with this ${err.attribute} already exists`);
  if (err instanceof StoreNotFoundError) return new ScimError(404, undefined, `Resource ${err.id} not found`);
  if (err instanceof StorePreconditionError) return preconditionFailed(err.currentVersion);
  if (err instanceof StoreInvalidMemberError) return new ScimError(400, "invalidValue", err.message);
  if (err instanceof StoreTooManyMembersError) return new ScimError(400, "invalidValue", err.message);
  return err;
}
