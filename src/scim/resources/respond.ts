/** Writes SCIM responses: JSON with `application/scim+json`, ETag and Location where they apply. */
import type { Response } from "express";
import { etag } from "./representation";
import { sendScimJson } from "../scim-json";

type Json = Record<string, unknown>;

/** Sends one resource; `version` sets the ETag header, `location` the Location header (201). */
export function sendResource(res: Response, status: number, body: Json, version?: number, location?: string): void {
  if (version !== undefined) res.setHeader("ETag", etag(version));
  if (location) res.setHeader("Location", location);
  sendScimJson(res.status(status), JSON.stringify(body));
}

/** The ListResponse of a page of `count` resources, `Resources` (last) still empty ([RFC7644§3.4.2]). */
export function listHead(total: number, startIndex: number, count: number): Json {
  return { schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: total, startIndex, itemsPerPage: count, Resources: [] };
}

/**
 * An RFC 9865 cursor page's ListResponse, `Resources` (last) still empty: `nextCursor` unless this is the
 * last page ("nextCursor is omitted from a response only to indicate that there are no more result
 * pages"), `totalResults` when known.
 */
export function cursorListHead(total: number | undefined, count: number, nextCursor: string | undefined): Json {
  return {
    schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
    ...(total !== undefined ? { totalResults: total } : {}),
    itemsPerPage: count,
    ...(nextCursor !== undefined ? { nextCursor } : {}),
    Resources: [],
  };
}

/** Sends a ListResponse ([RFC7644§3.4.2]); itemsPerPage is the number of resources on this page. */
export function sendList(res: Response, total: number, startIndex: number, resources: Json[]): void {
  sendScimJson(res.status(200), JSON.stringify({ ...listHead(total, startIndex, resources.length), Resources: resources }));
}

/** Sends an RFC 9865 cursor page (cursorListHead). */
export function sendCursorList(res: Response, total: number | undefined, resources: Json[], nextCursor: string | undefined): void {
  sendScimJson(res.status(200), JSON.stringify({ ...cursorListHead(total, resources.length, nextCursor), Resources: resources }));
}
