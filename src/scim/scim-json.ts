/**
 * How every SCIM answer with a body is sent: the JSON text with `Content-Type: application/scim+json`
 * exactly. Express's `res.type(...).send(string)` appends `; charset=utf-8`, and some clients compare
 * the header as a string.
 */
import type { Response } from "express";

/*
 * [RFC7644§8.1] registers application/scim+json with "Required parameters:  none" and "Optional
 * parameters:  none"; its encoding is UTF-8 JSON ([RFC8259§8.1]), so a charset parameter says nothing.
 */
export const SCIM_MEDIA_TYPE = "application/scim+json";

/**
 * Sends `json` (already serialised) with the SCIM media type and no parameters; the text is left in
 * `res.locals.scimResponseText` for the request log (src/scim/request-log/).
 */
export function sendScimJson(res: Response, json: string): void {
  res.locals.scimResponseText = json;
  res.setHeader("Content-Type", SCIM_MEDIA_TYPE);
  // a Buffer, not a string: Express adds a charset to a string body's Content-Type
  res.send(Buffer.from(json, "utf8"));
}
