/**
 * What a person sees after an action taken from a page: a form POST is answered with a redirect (so a
 * reload does not post again) whose address carries the outcome in words, signed with the session's form
 * token; the page it leads to shows the message. A message is shown only with a valid signature, so a
 * link made elsewhere cannot put words on the bridge's pages. JSON callers get the status and body as before.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { currentFormToken } from "./forgery/form-token";

export interface Notice {
  ok: boolean;
  text: string;
}

const current = new AsyncLocalStorage<Notice | undefined>();

function sign(token: string, kind: string, text: string): string {
  return createHmac("sha256", token).update(`${kind}\n${text}`).digest("base64url").slice(0, 32);
}

/** `to` with the outcome `text` attached for the page it leads to (unchanged outside a signed-in session). */
export function withNotice(to: string, text: string, ok = true): string {
  const token = currentFormToken();
  if (!token) return to;
  const kind = ok ? "ok" : "error";
  const q = new URLSearchParams({ notice: text.slice(0, 500), kind, sig: sign(token, kind, text.slice(0, 500)) });
  return `${to}${to.includes("?") ? "&" : "?"}${q}`;
}

/** True for a request posted by a page's form (answered with a redirect, not JSON). */
export function fromForm(req: Request): boolean {
  return !!req.is("application/x-www-form-urlencoded");
}

/**
 * Answers an action: a form gets a redirect to `to` with `message` (an error message when `status` is
 * 4xx/5xx and the body has an `error`); a program gets `status` and `body`.
 */
export function answer(req: Request, res: Response, status: number, body: unknown, to: string, message: string): void {
  if (!fromForm(req)) { res.status(status).json(body); return; }
  const failed = status >= 400;
  const error = (body as { error?: unknown } | undefined)?.error;
  res.redirect(303, withNotice(to, failed ? `Not done: ${typeof error === "string" ? error : `status ${status}`}` : message, !failed));
}

/** Middleware of the signed-in pages: makes a signed outcome in the address the page's message. */
export function readNotice(): RequestHandler {
  return (req, _res, next) => {
    const { notice, kind, sig } = req.query;
    const token = currentFormToken();
    let found: Notice | undefined;
    if (req.method === "GET" && token && typeof notice === "string" && typeof sig === "string" && (kind === "ok" || kind === "error")) {
      const want = Buffer.from(sign(token, kind, notice));
      const got = Buffer.from(sig);
      if (want.length === got.length && timingSafeEqual(want, got)) found = { ok: kind === "ok", text: notice };
    }
    current.run(found, next);
  };
}

/** The message of the request being served, if any. */
export function currentNotice(): Notice | undefined {
  return current.getStore();
}
