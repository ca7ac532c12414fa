/**
 * The check of /metrics: with `metrics.tokenHashes` a scrape must carry one of those tokens as a Bearer
 * token ([RFC6750§3](https://datatracker.ietf.org/doc/html/rfc6750#section-3): a 401 carries
 * `WWW-Authenticate: Bearer`); without, /metrics is open and shows opaque directory labels instead of ids.
 */
import type { Request, Response } from "express";
import { presentedToken, tokenMatches } from "./token";

/** The metrics token check of `tokenHashes` (hex SHA-256); `required` is false when the list is empty. */
export function metricsAuth(tokenHashes: string[]): { required: boolean; allow(req: Request, res: Response): boolean } {
  const hashes = tokenHashes.map((h) => Buffer.from(h, "hex"));
  return {
    required: hashes.length > 0,
    /** true when the request may read /metrics; else it has answered 401. */
    allow(req, res) {
      if (!hashes.length || tokenMatches(presentedToken(req.header("authorization")), hashes)) return true;
      res.setHeader("WWW-Authenticate", "Bearer realm=\"scim-bridge-metrics\"");
      res.status(401).json({ error: "metrics token missing or invalid" });
      return false;
    },
  };
}
