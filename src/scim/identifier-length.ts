/**
 * Length caps of the identifying attributes (userName, displayName, externalId; `scim.maxIdentifierLength`,
 * default 1,024 characters). RFC 7643 sets no length, and RFC 7644 §3.12 lets a service provider refuse a
 * value it does not accept: "invalidValue — A required value was missing, or the value specified was not
 * compatible with the operation or attribute type". Without a cap one value of megabytes became index
 * keys and was sent on to the platform on every sync. Lengths count Unicode code points, not UTF-16 units.
 */
import { ScimError } from "./errors";

export const DEFAULT_MAX_IDENTIFIER_LENGTH = 1024;

/** Top-level attributes capped, by their lower-cased name. */
const CAPPED = new Set(["username", "displayname", "externalid"]);

/** The number of code points of `s`, counted only when its UTF-16 length could exceed `max`. */
function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let n = 0;
  for (const _ of s) if (++n > max) return true;
  return false;
}

/** Throws 400 invalidValue when a capped attribute of `body` is longer than `max` characters. */
export function assertIdentifierLengths(body: Record<string, unknown>, max: number): void {
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === "string" && CAPPED.has(k.toLowerCase()) && longerThan(v, max)) {
      throw new ScimError(400, "invalidValue", `Attribute '${k}' is longer than ${max} characters`);
    }
  }
}
