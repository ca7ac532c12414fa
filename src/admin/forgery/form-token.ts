/**
 * The per-session form token (synchronizer token) of the status page. Each admin session keeps a random
 * token beside it in Redis (src/auth/admin-session-store.ts); every state-changing form carries it in a
 * hidden field, and the forgery guard (forgery-guard.ts) compares it with the session's. A page on another
 * origin cannot read the token, so it cannot build a form the bridge accepts.
 *
 * The signed-in request's token is held for the request's duration (AsyncLocalStorage), so a page
 * renderer adds the field with `formTokenField()` without passing the token down.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes, timingSafeEqual } from "node:crypto";

/** The form field (and, for scripts, the `X-Form-Token` header) that carries the token. */
export const FORM_TOKEN_FIELD = "_formToken";
export const FORM_TOKEN_HEADER = "x-form-token";

const current = new AsyncLocalStorage<string>();

/** A new random token for a new session. */
export function newFormToken(): string {
  return randomBytes(24).toString("base64url");
}

/** Runs `fn` (the rest of the request) with `token` as the signed-in session's form token. */
export function withFormToken<T>(token: string, fn: () => T): T {
  return current.run(token, fn);
}

/** The hidden field for a state-changing form of a signed-in page (empty when nobody is signed in). */
export function formTokenField(): string {
  const token = current.getStore();
  return token ? `<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${token}">` : "";
}

/** The token of the request being served, for pages that need it elsewhere (a script's header). */
export function currentFormToken(): string | undefined {
  return current.getStore();
}

/** Compares a presented token with the session's in constant time. */
export function formTokenMatches(presented: unknown, expected: string): boolean {
  if (typeof presented !== "string" || presented.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(presented), Buffer.from(expected));
}
