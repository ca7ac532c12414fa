/**
 * Admin authentication: `Authorization: Bearer <admin token>`, checked against `admin.tokenHashes`
 * (SHA-256, constant time). SCIM tokens are never admin tokens, and the other way round: they are
 * different hash lists. With no admin hash configured every admin call is refused.
 */
import type { RequestHandler } from "express";
import { presentedToken, tokenMatches } from "../scim/auth";

/** 401 JSON unless the request carries an admin token. */
export function adminAuth(hashes: string[]): RequestHandler {
  const buffers = hashes.map((h) => Buffer.from(h, "hex"));
  return (req, res, next) => {
    const header = req.header("authorization");
    const token = header && /^Bearer\s/i.test(header) ? presentedToken(header) : undefined;
    if (tokenMatches(token, buffers)) return next();
    res.setHeader("WWW-Authenticate", "Bearer realm=\"scim-bridge-admin\"");
    res.status(401).json({ error: "admin token missing or invalid" });
  };
}
