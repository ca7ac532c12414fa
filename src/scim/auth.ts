/**
 * Bearer-token authentication per directory, before anything reads the body.
 * An unknown directory and a wrong token get the same 401, so a token of directory A learns nothing about
 * directory B. [RFC6750§3] a 401 carries `WWW-Authenticate: Bearer`.
 */
import type { RequestHandler } from "express";
import { presentedToken, tokenMatches } from "../auth/token";
import { sendScimError } from "./errors";

/** Middleware for `/scim/v2/:directoryId`: 401 unless the token belongs to that directory. */
export function directoryAuth(tokenHashes: Map<string, Buffer[]>, onFailure?: (ip: string | undefined) => void): RequestHandler {
  return (req, res, next) => {
    const hashes = tokenHashes.get(String(req.params.directoryId)) ?? [];
    if (tokenMatches(presentedToken(req.header("authorization")), hashes)) return next();
    onFailure?.(req.ip);
    res.setHeader("WWW-Authenticate", "Bearer realm=\"scim-bridge\"");
    sendScimError(res, 401, undefined, "Authorization failure: missing or invalid bearer token");
  };
}
