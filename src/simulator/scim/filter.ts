/**
 * The SCIM filters the simulator understands: `<attr> eq "<value>"` on one attribute
 * ([RFC7644§3.4.2.2](https://datatracker.ietf.org/doc/html/rfc7644#section-3.4.2.2)). Anything else is
 * 400 `invalidFilter`, which is what a client relying on more would need to know.
 */
import { SimError } from "../sim-error";

/** A parsed equality filter. */
export interface EqFilter {
  attribute: string;
  value: string;
}

const EQ = /^\s*([A-Za-z][\w.]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i;

/** Parses `filter`, allowing only the listed attributes (compared case-insensitively). */
export function parseEqFilter(filter: string, allowed: string[]): EqFilter {
  const m = EQ.exec(filter);
  if (!m) throw new SimError(400, `unsupported filter: ${filter}`, "invalidFilter");
  const attribute = allowed.find((a) => a.toLowerCase() === m[1].toLowerCase());
  if (!attribute) throw new SimError(400, `filtering on ${m[1]} is not supported`, "invalidFilter");
  return { attribute, value: m[2].replace(/\\(.)/g, "$1") };
}

/** Member ids named by a `members[value eq "a" or value eq "b"]` path; null when the path is not of that form. */
export function parseMemberValuePath(path: string): string[] | null {
  const m = /^members\[(.*)\]$/i.exec(path.trim());
  if (!m) return null;
  const ids: string[] = [];
  for (const part of m[1].split(/\s+or\s+/i)) {
    const p = /^\s*value\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(part);
    if (!p) throw new SimError(400, `unsupported members filter: ${m[1]}`, "invalidFilter");
    ids.push(p[1].replace(/\\(.)/g, "$1"));
  }
  return ids;
}
