/**
 * Bearer-token authentication per directory, before anything reads the body.
 * An unknown directory and a wrong token get the same 401, so a token of directory A learns nothing about
 * directory B. [RFC6750§3] a 401 carries `WWW-Authenticate: Bearer`.
 * A valid token always passes. Wrong tokens are counted per (directory, client address); past the limit
 * they get 429 with Retry-After instead of 401 (src/auth/auth-failures.ts).
 */
import type { RequestHandler } from "express";
import { AuthFailureLimiter } from "../auth/auth-failures";
import { presentedToken, tokenMatches } from "../auth/token";
import { DIRECTORY_ID } from "../config/schema";
import type { AuthFailureKeys } from "../store";
import { sendScimError } from "./errors";

/** Middleware for `/scim/v2/:directoryId`: next() for a token of that directory, else 401 (or 429 past the failure limit). */
export function directoryAuth(tokenHashes: Map<string, Buffer[]>, limiter: AuthFailureLimiter, keys: AuthFailureKeys): RequestHandler {
  return async (req, res, next) => {
    const directoryId = String(req.params.directoryId);
    if (tokenMatches(presentedToken(req.header("authorization")), tokenHashes.get(directoryId) ?? [])) return next();
    const wait = await limiter.fail(keys.directory(DIRECTORY_ID.test(directoryId) ? directoryId : undefined, req.ip ?? "unknown"));
    if (wait) {
      res.setHeader("Retry-After", String(wait));
      return sendScimError(res, 429, undefined, "Too many failed authentications from this address for this directory; retry later");
    }
    res.setHeader("WWW-Authenticate", "Bearer realm=\"scim-bridge\"");
    sendScimError(res, 401, undefined, "Authorization failure: missing or invalid bearer token");
  };
}
