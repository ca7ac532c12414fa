/**
 * The canonical identity of a platform account: every directory whose `platform.baseUrl` names the same
 * account shares one ownership map, one account rate window and one external-user count, whatever the
 * spelling of its URL. The URL is parsed as WHATWG URL does (the way the platform client reaches it):
 * scheme and host lower-cased, the scheme's default port dropped, `.` and `..` path segments resolved,
 * IPv4 forms normalised (`127.0.0.1.` → `127.0.0.1`); then a trailing dot of a host name and trailing
 * slashes are stripped.
 *
 * Host names are compared as text, never resolved: `localhost` and `127.0.0.1` are different accounts here.
 * A name may resolve to other addresses on another host or later (`/etc/hosts`, `localhost` → `::1`), and
 * treating two names as one account on a guess would let one directory's ownership decide for an account
 * it does not talk to. docs/operations.md asks operators to spell one account with one host.
 */
import { createHash } from "node:crypto";

/** `scheme://host[:port]/path` of the account `baseUrl` names; a URL that does not parse is returned trimmed. */
export function accountIdentity(baseUrl: string): string {
  let u: URL;
  try {
    u = new URL(baseUrl.trim());
  } catch {
    return baseUrl.trim().replace(/\/+$/, "");
  }
  const host = u.hostname.replace(/\.$/, "");
  const path = u.pathname.replace(/\/+$/, "");
  return `${u.protocol}//${host}${u.port ? `:${u.port}` : ""}${path}`;
}

/** Do two base URLs name one platform account? */
export function sameAccount(a: string, b: string): boolean {
  return accountIdentity(a) === accountIdentity(b);
}

/** The hash that names an account in Redis keys (no URL text becomes a key). */
export function accountHash(baseUrl: string): string {
  return createHash("sha1").update(accountIdentity(baseUrl)).digest("hex");
}
