/**
 * Conditional requests with `meta.version` ETags ([RFC7644§3.14]): If-Match on PUT/PATCH/DELETE
 * ("412 Precondition Failed" when it does not match) and If-None-Match on GET (304 when it matches).
 */
import type { Request } from "express";
import { ScimError } from "../errors";

/** Versions listed in an If-Match / If-None-Match header; "*" → "any"; absent → undefined. */
export function parseEtags(header: string | undefined): number[] | "any" | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  if (header.trim() === "*") return "any";
  const out: number[] = [];
  for (const part of header.split(",")) {
    const m = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(part);
    if (m) out.push(Number(m[1]));
  }
  return out;
}

/**
 * The version a write must find (compare-and-set) for this request's If-Match, given the current one:
 * undefined when there is no condition; throws 412 when the condition already fails.
 */
export function expectedVersion(req: Request, current?: number): number | undefined {
  const tags = parseEtags(req.header("if-match"));
  if (tags === undefined || tags === "any") return undefined;
  if (current !== undefined && !tags.includes(current)) throw preconditionFailed(current);
  if (current !== undefined) return current;
  if (tags.length !== 1) return tags[0] ?? -1;
  return tags[0];
}

/** True when the GET can answer 304 (If-None-Match lists the current version or "*"). */
export function notModified(req: Request, current: number): boolean {
  const tags = parseEtags(req.header("if-none-match"));
  return tags === "any" || (Array.isArray(tags) && tags.includes(current));
}

export function preconditionFailed(current: number): ScimError {
  return new ScimError(412, undefined, `Precondition failed: the resource is at version W/"${current}"`, { ETag: `W/"${current}"` });
}
