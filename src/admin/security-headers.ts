/** Security headers for admin responses: no framing, no sniffing, no referrer, no caching, a strict CSP. */
import type { RequestHandler } from "express";

/**
 * Headers for every admin response; `csp` is off for bull-board's own UI (it ships inline scripts). Scripts
 * only from the bridge itself (the pages' refresh script, src/admin/live.ts), never inline; fetches only to it.
 */
export function securityHeaders(csp = true): RequestHandler {
  return (_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    if (csp) res.setHeader("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
    next();
  };
}
