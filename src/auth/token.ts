/**
 * Tokens shared by every surface that authenticates (SCIM directories, the admin API, the CLI that mints
 * tokens): config holds SHA-256 hashes of tokens, never tokens; a presented token is hashed and compared
 * with every hash in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";

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

/** Constant-time check of `token` against a list of SHA-256 digests. */
export function tokenMatches(token: string | undefined, hashes: Buffer[]): boolean {
  const digest = createHash("sha256").update(token ?? "", "utf8").digest();
  let ok = false;
  // every hash is compared (no early exit), and an unknown directory still does one comparison
  for (const h of hashes) ok = timingSafeEqual(h, digest) || ok;
  if (hashes.length === 0) timingSafeEqual(DUMMY, digest);
  return ok && token !== undefined;
}
