/**
 * dateTime values as instants. [RFC7643§2.3.5](https://datatracker.ietf.org/doc/html/rfc7643#section-2.3.5):
 * "A DateTime value (e.g., 2008-01-23T04:56:22Z) … MUST be encoded as a valid xsd:dateTime"; and
 * [RFC7644§3.4.2.2](https://datatracker.ietf.org/doc/html/rfc7644#section-3.4.2.2): "gt … If the attribute
 * value is a date, the attribute value is … chronologically after". xsd:dateTime allows any number of
 * fractional digits and a `±hh:mm` offset (.NET writes `2015-10-10T14:38:21.8617979-07:00`); Date.parse keeps
 * milliseconds only, so `…21.8617979` and `…21.861` would compare equal. Instants are kept as whole seconds
 * since the epoch plus the fraction's digits, and compared exactly.
 */

/** An instant: UTC seconds since the epoch and the fractional digits (no trailing zeros). */
export interface Instant {
  seconds: number;
  fraction: string;
}

const XSD_DATE_TIME = /^(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?$/i;

/** Parses an xsd:dateTime (a date alone is its midnight; no offset is UTC); undefined when it is not one. */
export function parseInstant(text: string): Instant | undefined {
  const m = XSD_DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "", zone = "Z"] = m;
  const [month, day, hour, minute, second] = [mo, d, h, mi, s].map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const [oh, om] = zone.slice(1).split(":").map(Number);
    if (oh > 14 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  const ms = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  if (Number.isNaN(ms) || new Date(Date.UTC(Number(y), month - 1, day)).getUTCDate() !== day) return undefined;
  return { seconds: ms / 1000 - offsetMinutes * 60, fraction: frac.replace(/0+$/, "") };
}

/** -1, 0 or 1 as `a` is before, at or after `b`. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, "0");
  const fb = b.fraction.padEnd(width, "0");
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}
