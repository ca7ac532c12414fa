/**
 * Control characters in attribute values and filter literals. JSON lets a client escape any of them
 * (`"\u0000"`), and without a check a userName such as "bob\u0000" or "bob\u001b[2J" was stored and sent on
 * to the platform, and the indexes fold "\n" and "\0" to a space, so "a\u0000b" would look up "a b".
 *
 * - Identifiers (userName, externalId, displayName, emails.value) take no control character at all:
 *   [RFC8264§9.11](https://datatracker.ietf.org/doc/html/rfc8264#section-9.11) (PRECIS, which RFC 7613
 *   uses for usernames): "Control characters … are disallowed".
 * - Other strings keep TAB, LF and CR, which free text uses: RFC 7643 §4.1.2's own example of
 *   `addresses.formatted` is "100 Universal City Plaza\nHollywood, CA 91608 USA". The other C0 controls
 *   and DEL are refused.
 */
import { ScimError } from "./errors";

/** Any C0 or C1 control character, or DEL. */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/** C0 control characters other than TAB, LF and CR, and DEL. */
export const NON_WHITESPACE_CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Attribute paths (lower-cased, dotted) whose values are identifiers. */
const IDENTIFIERS = new Set(["username", "externalid", "displayname", "emails.value"]);

function codePoint(s: string): string {
  return `U+${s.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Throws 400 invalidValue when a string in `body` (a resource body) holds a control character it may not. */
export function assertNoControlCharacters(body: unknown, path = ""): void {
  if (typeof body === "string") {
    const m = (IDENTIFIERS.has(path) ? CONTROL_CHARACTER : NON_WHITESPACE_CONTROL_CHARACTER).exec(body);
    if (m) throw new ScimError(400, "invalidValue", `Attribute '${path}' contains a control character (${codePoint(m[0])})`);
    return;
  }
  if (Array.isArray(body)) {
    for (const v of body) assertNoControlCharacters(v, path);
    return;
  }
  if (body && typeof body === "object") {
    for (const [k, v] of Object.entries(body)) assertNoControlCharacters(v, path ? `${path}.${k.toLowerCase()}` : k.toLowerCase());
  }
}
