/**
 * Refuses forged state-changing admin requests (cross-site request forgery). A signed-in person's browser
 * sends the session cookie with any request to the bridge's host, including one a page on another port or a
 * sibling subdomain makes it send (SameSite=Strict does not separate those: they are the same site). So a
 * POST, PUT, PATCH or DELETE authenticated by the cookie is accepted only when
 *   - it comes from the bridge's own origin: `Origin` (or, without it, `Sec-Fetch-Site: same-origin`) names
 *     `server.publicBaseUrl` or the origin the request was addressed to (its Host, which a forging page
 *     cannot choose); and
 *   - it carries the session's form token (form-token.ts) in the `_formToken` field or the `X-Form-Token`
 *     header, which a page on another origin cannot read.
 * Bull Board's own scripts cannot add the token: there the origin check alone applies, and the request must
 * prove its origin (a browser always sends `Origin` with a POST, PUT, PATCH or DELETE).
 * A request with the Bearer admin token is not a browser's ambient credential and passes untouched.
 */
import type { Request, RequestHandler, Response } from "express";
import { adminCaller } from "../../auth/admin-session";
import { FORM_TOKEN_FIELD, FORM_TOKEN_HEADER, formTokenMatches } from "./form-token";
import { page } from "../layout";
import { esc } from "../html";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** Where a request says it comes from: the bridge's own origin, another one, or it does not say. */
export type RequestOrigin = "same" | "foreign" | "unknown";

/** The origins of the bridge: its public base URL's and the one this request was addressed to. */
function ownOrigins(req: Request, publicBaseUrl: string | undefined): string[] {
  const own = [`${req.protocol}://${req.get("host") ?? ""}`.toLowerCase()];
  if (publicBaseUrl) own.push(new URL(publicBaseUrl).origin.toLowerCase());
  return own;
}

/**
 * RFC 6454 §7.2: the user agent sends `Origin` with the origin that caused the request ("null" when
 * private). Fetch metadata (W3C): `Sec-Fetch-Site` is "same-origin" only for a request from the same origin.
 * "null" without fetch metadata proves nothing and counts as foreign.
 */
export function requestOrigin(req: Request, publicBaseUrl: string | undefined): RequestOrigin {
  const origin = req.header("origin");
  // a page under `Referrer-Policy: no-referrer` (ours) posts its forms with `Origin: null`: then the fetch
  // metadata, which the browser always sets, decides
  if (origin !== undefined && origin !== "null") {
    let parsed: string;
    try { parsed = new URL(origin).origin.toLowerCase(); } catch { return "foreign"; }
    return ownOrigins(req, publicBaseUrl).includes(parsed) ? "same" : "foreign";
  }
  const site = req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin" ? "same" : "foreign";
  return origin === "null" ? "foreign" : "unknown";
}

function refuse(req: Request, res: Response, why: string): void {
  res.status(403);
  if (req.accepts(["json", "html"]) === "html") {
    res.type("html").send(page("scim-bridge — refused", `<h1>Refused</h1><p role="alert" class="failing">${esc(why)}</p>
<p><a href="/admin/status">Open the status page</a> and try again from there.</p>`));
  } else {
    res.json({ error: why });
  }
}

export interface ForgeryGuardOptions {
  publicBaseUrl: string | undefined;
  /** False for Bull Board, whose requests cannot carry the form token: the origin must then be proven. */
  formToken?: boolean;
}

/** Middleware after the admin sign-in check: refuses a forged state-changing request with 403. */
export function forgeryGuard({ publicBaseUrl, formToken = true }: ForgeryGuardOptions): RequestHandler {
  return (req, res, next) => {
    const caller = adminCaller(res);
    if (SAFE.has(req.method) || !caller || caller.via === "token") return next();
    const origin = requestOrigin(req, publicBaseUrl);
    if (origin === "foreign") return refuse(req, res, "This request came from a page outside the bridge; nothing was changed.");
    if (!formToken) {
      if (origin !== "same") return refuse(req, res, "This request does not say where it came from; nothing was changed.");
      return next();
    }
    const body = req.body as Record<string, unknown> | undefined;
    const presented = req.header(FORM_TOKEN_HEADER) ?? body?.[FORM_TOKEN_FIELD];
    if (!formTokenMatches(presented, caller.formToken)) {
      return refuse(req, res, "This form is not from your signed-in status page (or the page is from an earlier sign-in); nothing was changed.");
    }
    // the handlers read their own fields only; the proof is not one of them
    if (body && typeof body === "object") delete body[FORM_TOKEN_FIELD];
    next();
  };
}
