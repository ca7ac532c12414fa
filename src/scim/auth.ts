/**
 * Bearer-token authentication per directory, before anything reads the body.
 * Config holds SHA-256 hashes of tokens, never tokens; the presented token is hashed and compared with
 * every hash of the directory in constant time. An unknown directory and a wrong token get the same 401,
 * so a token of directory A learns nothing about directory B.
 * [RFC6750§3] a 401 carries `WWW-Authenticate: Bearer`.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";
import { sendScimError } from "./errors";

/** SHA-256 of a token, as the config stores it (hex). */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** The token of an Authorization header: `Bearer <t>`, or Okta's "HTTP Header" mode (the raw token, O14). */
export function presentedToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (m) return m[1];
  return /^\S+$/.test(header.trim()) ? header.trim() : undefined;
}

const DUMMY = Buffer.alloc(32);

/** Constant-time check of `token` against a list of hex digests. */
export function tokenMatches(token: string | undefined, hashes: Buffer[]): boolean {
  const digest = createHash("sha256").update(token ?? "", "utf8").digest();
  let ok = false;
  // every hash is compared (no early exit), and an unknown directory still does one comparison
  for (const h of hashes) ok = timingSafeEqual(h, digest) || ok;
  if (hashes.length === 0) timingSafeEqual(DUMMY, digest);
  return ok && token !== undefined;
}

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
