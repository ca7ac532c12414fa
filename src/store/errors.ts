/**
 * Store outcomes that are not success, one class each; the SCIM layer maps them to HTTP statuses
 * (conflict → 409 uniqueness, not found → 404, precondition → 412, invalid member → 400, too many → 400).
 */
import { RedisUnavailableError } from "./connection";

/** A unique attribute (userName, externalId, displayName) is already taken in this directory. */
export class StoreConflictError extends Error {
  constructor(readonly kind: "User" | "Group", readonly attribute: string) {
    super(`${kind} with this ${attribute} already exists in this directory`);
    this.name = this.constructor.name;
  }
}

/** No resource with that id in this directory. */
export class StoreNotFoundError extends Error {
  constructor(readonly kind: "User" | "Group", readonly id: string) {
    super(`${kind} ${id} not found`);
    this.name = this.constructor.name;
  }
}

/** The expected version (If-Match) is not the current one. */
export class StorePreconditionError extends Error {
  constructor(readonly currentVersion: number) {
    super(`Resource version is ${currentVersion}, not the version the request expected`);
    this.name = this.constructor.name;
  }
}

/** A member value names no user or group of this directory (or the group itself). */
export class StoreInvalidMemberError extends Error {
  /** The first of `values`. */
  readonly value: string;
  /** Every member value of the write that is no user or group of the directory. */
  constructor(readonly values: string[]) {
    super(values.length > 1
      ? `Members '${values[0]}' and ${values.length - 1} more are not users or groups of this directory`
      : `Member '${values[0]}' is not a user or group of this directory`);
    this.value = values[0];
    this.name = this.constructor.name;
  }
}

/** A group would exceed the configured member limit. */
export class StoreTooManyMembersError extends Error {
  constructor(readonly limit: number) {
    super(`A group may have at most ${limit} members`);
    this.name = this.constructor.name;
  }
}

/**
 * A create found that an identical create whose answer was lost was given id `id` (scim/lost-creates/):
 * nothing was written; the caller answers that resource, or creates it under that id.
 */
export class StoreLostCreateError extends Error {
  constructor(readonly id: string) {
    super(`An identical create whose answer was lost was given id ${id}`);
    this.name = this.constructor.name;
  }
}

/** A compare-and-set lost to a concurrent write; the caller re-reads and tries again. */
export class StoreRetryError extends Error {
  constructor() {
    super("Concurrent update; retry");
    this.name = this.constructor.name;
  }
}

/**
 * A write whose answer was lost did not commit, and never will: settlement found it had not run and
 * gave it up. The SCIM layer answers 503 + Retry-After, which is now the truth.
 */
export class StoreWriteAbandonedError extends Error {
  constructor(cause: string) {
    super(`The write did not commit (${cause}); retry later`);
    this.name = this.constructor.name;
  }
}

/**
 * A write committed on the Redis master, but not enough replicas acknowledged it in time
 * (`redis.replicaAck`, replica-ack.ts): it could still be lost in a failover. The SCIM layer answers
 * 503 + Retry-After so the IdP does not count it as done; its retry is applied again, harmlessly.
 */
export class StoreNotReplicatedError extends Error {
  constructor(why: string) {
    super(`The write was not confirmed by the store's replicas (${why}); retry later`);
    this.name = this.constructor.name;
  }
}

/**
 * True for errors that mean "the store is not there" (ioredis connection and timeout errors), including a
 * Redis Cluster or Sentinel failover in progress (slot without a master, cluster not ready, a master
 * that is now a replica), a write that did not commit, and a write its replicas did not acknowledge
 * (`redis.replicaAck`): answered 503 + Retry-After by the SCIM and admin APIs, never 404 or 500.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (err instanceof StoreWriteAbandonedError || err instanceof StoreNotReplicatedError || err instanceof RedisUnavailableError) return true;
  const msg = err instanceof Error ? err.message : "";
  return /Stream isn't writeable|Connection is closed|ECONNREFUSED|ECONNRESET|Command timed out|MaxRetriesPerRequest|Reached the max retries|LOADING|READONLY|NOSCRIPT.*closed|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|Cluster isn't ready|Failed to refresh slots cache|None of startup nodes is available|Too many Cluster redirections|All sentinels are unreachable|Connection in subscriber mode|Stream connection ended/i.test(msg);
}
