/**
 * The form in which userName uniqueness compares names (the `ix:un` index, `userName eq` look-ups, the
 * userName sort index). RFC 7643 §4.1.1: userName "MUST be unique across the service provider's entire
 * set of Users" and is caseExact false; RFC 8265 §3.3.2 (PRECIS UsernameCaseMapped) compares usernames
 * after case mapping and Unicode Normalization Form C. So "Straße" and "STRASSE", or "é" sent composed
 * (U+00E9) and decomposed (e + U+0301), are one name: NFC, then full case folding (upper-casing then
 * lower-casing folds ß → ss, ﬁ → fi and final sigma as Unicode's full case folding does), then NFC again.
 * "\n" and "\0" become a space: they separate the index's entries (control characters never reach a
 * stored userName: src/scim/control-characters.ts).
 */

/** The folded form of a userName. */
export function foldUserName(s: string): string {
  // ASCII: lower-casing is the whole fold (the common case, without three passes over the string)
  const folded = /^[\x20-\x7e]*$/.test(s) ? s.toLowerCase() : s.normalize("NFC").toUpperCase().toLowerCase().normalize("NFC");
  return folded.replace(/[\n\0]/g, " ");
}
