/**
 * The SCIM endpoint's JSON body parser: express.json with the configured limit, a look at the raw bytes
 * before JSON.parse sees them, and a look at the parsed value after.
 *
 * - The bytes must be UTF-8: without a check, invalid sequences became U+FFFD and were stored, so a user
 *   was created with a name the IdP never sent. [RFC8259§8.1](https://datatracker.ietf.org/doc/html/rfc8259#section-8.1):
 *   "JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8".
 * - The same goes for a JSON-escaped lone surrogate (`"\ud800"`): valid JSON, but no UTF-8 encoder can
 *   write the string (lone-surrogates.ts), so it is refused like invalid bytes (400 invalidValue). Only
 *   a body whose bytes hold a `\u` escape can contain one, so only those bodies have their strings read.
 * - Nesting: JSON.parse copes with any depth, but the code after it (SCIMMY's schema coercion,
 *   JSON.stringify, our normalisers) recurses, and 100,000 levels fit in a 1 MiB body: that overflowed the
 *   stack. A SCIM resource or message nests a handful of levels, so anything deeper is refused. The check
 *   walks the parsed objects and arrays (not every byte: that cost more than JSON.parse itself on a
 *   256-member PATCH).
 */
import { isUtf8 } from "node:buffer";
import express, { type RequestHandler } from "express";
import { ScimError } from "./errors";
import { hasLoneSurrogate } from "./lone-surrogates";

/** Deepest object/array nesting accepted in a request body (a PatchOp on an extension's complex attribute needs ~6). */
export const MAX_JSON_DEPTH = 64;

const ESCAPES = Symbol("body holds \\u escapes");

/**
 * True when the parsed JSON value nests objects/arrays deeper than `limit` (the value itself is level 1).
 * Recursive, but never deeper than `limit` + 1 calls: it returns as soon as a level passes the limit. It
 * allocates nothing (`for…in`, not `Object.values`): on a 256-member PATCH the array per member object
 * and the walk's own stacks were ~37 KB per request, a sixth of the server's allocations.
 */
export function nestedDeeperThan(root: unknown, limit: number, depth = 1): boolean {
  if (root === null || typeof root !== "object") return false;
  if (depth > limit) return true;
  if (Array.isArray(root)) {
    for (let i = 0; i < root.length; i++) if (nestedDeeperThan(root[i], limit, depth + 1)) return true;
    return false;
  }
  for (const k in root) if (nestedDeeperThan((root as Record<string, unknown>)[k], limit, depth + 1)) return true;
  return false;
}

/** The path (`emails[0].value`, or `(key)` for a key) of the first string holding a lone surrogate, or undefined. */
export function loneSurrogateAt(root: unknown): string | undefined {
  const nodes: Array<{ value: unknown; path: string }> = [{ value: root, path: "" }];
  while (nodes.length) {
    const { value, path } = nodes.pop()!;
    if (typeof value === "string") {
      if (hasLoneSurrogate(value)) return path || "(body)";
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => nodes.push({ value: v, path: `${path}[${i}]` }));
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if (hasLoneSurrogate(k)) return `${path ? `${path}.` : ""}(key)`;
        nodes.push({ value: v, path: path ? `${path}.${k}` : k });
      }
    }
  }
  return undefined;
}

/** Checks the raw body before it is parsed; throws a ScimError the SCIM error handler renders. */
function verifyBody(req: unknown, _res: unknown, buf: Buffer, encoding: string): void {
  if (encoding.toLowerCase() !== "utf-8" && encoding.toLowerCase() !== "utf8") {
    throw new ScimError(415, undefined, "Request bodies must be UTF-8 JSON (charset=utf-8)");
  }
  if (!isUtf8(buf)) throw new ScimError(400, "invalidSyntax", "Request body is not valid UTF-8");
  if (buf.indexOf("\\u") >= 0) (req as Record<symbol, boolean>)[ESCAPES] = true;
}

/** express.json for the SCIM media types, with the body limit and the checks above. */
export function scimJsonBody(types: string[], limitBytes: number): RequestHandler[] {
  return [
    express.json({ type: types, limit: limitBytes, strict: false, verify: verifyBody }),
    (req, _res, next) => {
      if (req.body === undefined) return next();
      if (nestedDeeperThan(req.body, MAX_JSON_DEPTH)) {
        return next(new ScimError(400, "invalidSyntax", `Request body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`));
      }
      if ((req as unknown as Record<symbol, boolean>)[ESCAPES]) {
        const at = loneSurrogateAt(req.body);
        if (at) return next(new ScimError(400, "invalidValue", `Request body holds a lone surrogate escape (half of a UTF-16 pair) at ${at}; strings must be valid Unicode`));
      }
      next();
    },
  ];
}
