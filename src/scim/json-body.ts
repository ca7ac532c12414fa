/**
 * The SCIM endpoint's JSON body parser: express.json with the configured limit, and a look at the raw
 * bytes before JSON.parse sees them. JSON.parse itself copes with any nesting, but the code after it
 * (SCIMMY's schema coercion, JSON.stringify, our normalisers) recurses, and 100,000 levels fit in a
 * 1 MiB body: that overflowed the stack ("Maximum call stack size exceeded" as a 400 detail, or a 500).
 * A SCIM resource or message nests a handful of levels, so anything deeper is refused up front.
 *
 * The bytes must also be UTF-8: without a check, invalid sequences became U+FFFD and were stored, so a
 * user was created with a name the IdP never sent. [RFC8259§8.1](https://datatracker.ietf.org/doc/html/rfc8259#section-8.1):
 * "JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8".
 */
import { isUtf8 } from "node:buffer";
import express, { type RequestHandler } from "express";
import { ScimError } from "./errors";

/** Deepest object/array nesting accepted in a request body (a PatchOp on an extension's complex attribute needs ~6). */
export const MAX_JSON_DEPTH = 64;

/** True when the JSON text in `buf` nests objects/arrays deeper than `limit` (brackets inside strings do not count). */
export function jsonNestedDeeperThan(buf: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > limit) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}

/** Checks the raw body before it is parsed; throws a ScimError the SCIM error handler renders. */
function verifyBody(_req: unknown, _res: unknown, buf: Buffer, encoding: string): void {
  if (encoding.toLowerCase() !== "utf-8" && encoding.toLowerCase() !== "utf8") {
    throw new ScimError(415, undefined, "Request bodies must be UTF-8 JSON (charset=utf-8)");
  }
  if (!isUtf8(buf)) throw new ScimError(400, "invalidSyntax", "Request body is not valid UTF-8");
  if (jsonNestedDeeperThan(buf, MAX_JSON_DEPTH)) {
    throw new ScimError(400, "invalidSyntax", `Request body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`);
  }
}

/** express.json for the SCIM media types, with the body limit and the checks above. */
export function scimJsonBody(types: string[], limitBytes: number): RequestHandler {
  return express.json({ type: types, limit: limitBytes, strict: false, verify: verifyBody });
}
