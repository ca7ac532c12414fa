/**
 * One directory's share of a server process: at most `maxConcurrentRequests` of its SCIM requests are in
 * progress at once; one more is answered 429 with Retry-After at once, before its body is read, so one
 * tenant's burst (a flood of large PATCHes, many parallel reads of a big group) cannot take the event
 * loop, the store connection and memory every other directory shares. Okta reschedules a request answered
 * 429 after Retry-After (IDP-DIALECTS O13) and Entra ID pauses for it (E17).
 *
 * The count is per process (no Redis call per request): N server processes behind a load balancer give a
 * directory N shares. Requests are counted after authentication, so only a directory's own tokens spend
 * its share; wrong tokens are throttled by src/auth/auth-failures.ts.
 */
import type { RequestHandler } from "express";
import { sendScimError } from "../errors";

/** Counts in-progress requests per directory and refuses those beyond `limitOf(directoryId)`. */
export class RequestShare {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly limitOf: (directoryId: string) => number, private readonly retryAfterSeconds: number) {}

  /** Requests of `directoryId` in progress now. */
  count(directoryId: string): number {
    return this.inFlight.get(directoryId) ?? 0;
  }

  /** Middleware for `/scim/v2/:directoryId` after authentication. */
  middleware(): RequestHandler {
    return (req, res, next) => {
      const directoryId = String(req.params.directoryId);
      const n = this.count(directoryId);
      if (n >= this.limitOf(directoryId)) {
        // [RFC6585§4] "The 429 status code indicates that the user has sent too many requests in a given
        // amount of time ("rate limiting") … MAY include a Retry-After header indicating how long to wait"
        res.setHeader("Retry-After", String(this.retryAfterSeconds));
        return sendScimError(res, 429, undefined, `Too many requests of directory "${directoryId}" in progress at once; retry after ${this.retryAfterSeconds} s`);
      }
      this.inFlight.set(directoryId, n + 1);
      let done = false;
      // "close" follows "finish" and also comes alone when the client goes away first: count down once
      const release = () => {
        if (done) return;
        done = true;
        const left = this.count(directoryId) - 1;
        if (left <= 0) this.inFlight.delete(directoryId);
        else this.inFlight.set(directoryId, left);
      };
      res.once("finish", release);
      res.once("close", release);
      next();
    };
  }
}
