/**
 * Bearer-token authentication per directory, before anything reads the body.
 * An unknown directory and a wrong token get the same 401 (status, body, headers, the same Redis work and
 * the same `/metrics` label), so a token of directory A learns nothing about directory B, and guessing
 * `/scim/v2/<id>` does not tell which directories exist. [RFC6750§3] a 401 carries `WWW-Authenticate: Bearer`.
 * A valid token always passes. Wrong tokens are counted per (directory, client address); past the limit
 * they get 429 with Retry-After instead of 401 (src/auth/auth-failures.ts).
 * Tokens are the directory's config-file hashes, the tokens made through the admin API and OAuth access
 * tokens of the directory (src/directories/registry.ts); an expired one is refused like a wrong one.
 * A disabled directory answers its own valid tokens 403 with a SCIM error: the IdP keeps its changes and
 * retries later, nothing is lost.
 */
import type { RequestHandler } from "express";
import { AuthFailureLimiter } from "./auth-failures";
import { presentedToken } from "./token";
import type { DirectoryRegistry } from "../directories/registry";
import { DIRECTORY_ID } from "../config/schema";
import type { AuthFailureKeys } from "./auth-failure-keys";
import { sendScimError } from "../scim/errors";

/** Middleware for `/scim/v2/:directoryId`: next() for a token of that directory, else 401 (or 429 past the failure limit). */
export function directoryAuth(registry: DirectoryRegistry, limiter: AuthFailureLimiter, keys: AuthFailureKeys): RequestHandler {
  return async (req, res, next) => {
    const directoryId = String(req.params.directoryId);
    const label = await registry.credentials.authenticateAs(directoryId, presentedToken(req.header("authorization")));
    if (label !== undefined) {
      // counted for its directory in /metrics from here on; a failed authentication is counted under one
      // label whether the directory exists or not (src/roles/server.ts)
      res.locals.scimAuthenticated = true;
      res.locals.scimTokenLabel = label; // for the request log
      if (!registry.get(directoryId)?.disabled) return next();
      return sendScimError(res, 403, undefined, `Directory "${directoryId}" is disabled on the bridge; changes are not accepted until an operator enables it again`);
    }
    const wait = await limiter.fail(keys.directory(DIRECTORY_ID.test(directoryId) ? directoryId : undefined, req.ip ?? "unknown"));
    if (wait) {
      res.setHeader("Retry-After", String(wait));
      return sendScimError(res, 429, undefined, "Too many failed authentications from this address for this directory; retry later");
    }
    res.setHeader("WWW-Authenticate", "Bearer realm=\"scim-bridge\"");
    sendScimError(res, 401, undefined, "Authorization failure: missing or invalid bearer token");
  };
}
