/**
 * Lone surrogates: a JSON text may escape half of a UTF-16 surrogate pair (`"\ud800"`). Raw bytes that
 * would encode one are invalid UTF-8 and refused by the body parser (json-body.ts), but the escape
 * passes JSON.parse and leaves a string no UTF-8 encoder can write: Redis and the platform would receive
 * U+FFFD instead, so a name the IdP never sent would be stored and synced.
 * [RFC8259§8.2](https://datatracker.ietf.org/doc/html/rfc8259#section-8.2): "…the behavior of software
 * that receives JSON texts containing such values is unpredictable". Such strings are refused.
 */

/** True when `s` holds a surrogate code unit that is not half of a pair. */
export function hasLoneSurrogate(s: string): boolean {
  return !(s as string & { isWellFormed(): boolean }).isWellFormed();
}
