/**
 * Control characters in attribute values and filter literals. JSON lets a client escape any of them
 * (`"\u0000"`), and without a check a userName such as "bob\u0000" or "bob\u001b[2J" was stored and sent on
 * to the platform, and the indexes fold "\n" and "\0" to a space, so "a\u0000b" would look up "a b".
 *
 * - Identifiers (userName, externalId, displayName, emails.value) take no control character at all:
 *   [RFC8264§9.11](https://datatracker.ietf.org/doc/html/rfc8264#section-9.11) (PRECIS, which RFC 7613
 *   uses for usernames): "Control characters … are disallowed".
 * - Identifiers also take no bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069)
 *   and no invisible format character (U+200B ZERO WIDTH SPACE, U+2060 WORD JOINER, U+FEFF): a
 *   "bob\u202Egro.elpmaxe@" shows as another person's name, and "bob\u200B" is a second "bob" nobody can
 *   tell apart. RFC 8264 §9.13 (PRECIS): "Default_Ignorable_Code_Point … are disallowed", and §9.8 leaves
 *   ZERO WIDTH NON-JOINER and JOINER (U+200C, U+200D) "CONTEXTJ" — valid only inside the scripts that need
 *   them. So userName, externalId and emails.value refuse them too; displayName keeps them, as a person's
 *   or group's name in Persian or an Indic script, or an emoji sequence, needs them.
 * - Other strings keep TAB, LF and CR, which free text uses: RFC 7643 §4.1.2's own example of
 *   `addresses.formatted` is "100 Universal City Plaza\nHollywood, CA 91608 USA". The other C0 controls
 *   and DEL are refused.
 */
import { ScimError } from "./errors";

/** Any C0 or C1 control character, or DEL. */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
/** C0 control characters other than TAB, LF and CR, and DEL. */
export const NON_WHITESPACE_CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Controls, bidi embeddings/overrides/isolates and invisible format characters (ZWNJ and ZWJ included). */
const IDENTIFIER_REFUSED = /[\u0000-\u001f\u007f-\u009f\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
/** The same without ZERO WIDTH NON-JOINER and JOINER, which names in some scripts need. */
const NAME_REFUSED = /[\u0000-\u001f\u007f-\u009f\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

/** Attribute paths (lower-cased, dotted) whose values are identifiers, and what each refuses. */
const IDENTIFIERS = new Map<string, RegExp>([
  ["username", IDENTIFIER_REFUSED], ["externalid", IDENTIFIER_REFUSED], ["emails.value", IDENTIFIER_REFUSED], ["displayname", NAME_REFUSED],
]);

function codePoint(s: string): string {
  return `U+${s.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Throws 400 invalidValue when a string in `body` (a resource body) holds a character it may not (above). */
export function assertNoControlCharacters(body: unknown, path = ""): void {
  if (typeof body === "string") {
    const m = (IDENTIFIERS.get(path) ?? NON_WHITESPACE_CONTROL_CHARACTER).exec(body);
    if (m) {
      const what = CONTROL_CHARACTER.test(m[0]) ? "a control character" : "an invisible or text-direction character";
      throw new ScimError(400, "invalidValue", `Attribute '${path}' contains ${what} (${codePoint(m[0])})`);
    }
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
