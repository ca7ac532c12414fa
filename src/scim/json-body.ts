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
import express, { type Request, type RequestHandler } from "express";
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

/** A look at the raw bytes of a request before they are parsed (throws a ScimError to refuse them). */
export type BeforeParse = (req: Request, buf: Buffer) => void;

/** Checks the raw body before it is parsed; throws a ScimError the SCIM error handler renders. */
function verifyBody(req: unknown, _res: unknown, buf: Buffer, encoding: string, beforeParse?: BeforeParse): void {
  if (encoding.toLowerCase() !== "utf-8" && encoding.toLowerCase() !== "utf8") {
    throw new ScimError(415, undefined, "Request bodies must be UTF-8 JSON (charset=utf-8)");
  }
  if (!isUtf8(buf)) throw new ScimError(400, "invalidSyntax", "Request body is not valid UTF-8");
  if (buf.indexOf("\\u") >= 0) (req as Record<symbol, boolean>)[ESCAPES] = true;
  beforeParse?.(req as Request, buf);
}

/**
 * True for `application/json` or `application/<anything>+json` (the SCIM types), with no parameter but a
 * UTF-8 charset: what IdPs send. Anything else (other parameters, spacing, charsets) is left to express.json.
 */
function plainJsonType(contentType: string): boolean {
  const semi = contentType.indexOf(";");
  const media = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  if (media !== "application/json" && !(media.startsWith("application/") && media.endsWith("+json") && media.length > "application/+json".length)) return false;
  if (semi < 0) return true;
  const param = contentType.slice(semi + 1).trim().toLowerCase();
  return param === "charset=utf-8" || param === "charset=\"utf-8\"" || param === "charset=utf8";
}

/**
 * Reads the body of a plain JSON request itself: a Content-Length within the limit, no Content-Encoding or
 * Transfer-Encoding, a SCIM type with a UTF-8 charset or none. The bytes get the same checks (verifyBody)
 * and the same parse (any JSON value; an empty body is `{}`) as with express.json, which reads every
 * other body (compressed, chunked, oversized, other charsets) and answers those as it always has.
 * Why: express.json decodes through iconv-lite's streaming decoder and matches the type with type-is on
 * every request: tens of µs and kilobytes of short-lived strings per large request, on the event loop every request of the server shares.
 */
/** An error of the kind express.json raises (`type`), for the SCIM error handler's one mapping of them. */
function bodyError(type: "entity.parse.failed" | "request.aborted"): Error {
  return Object.assign(new Error(type), { status: 400, type });
}

/** Where the plain reader leaves the body's text (the JSON the client sent) on the request. */
export const BODY_TEXT = Symbol("bodyText");

function plainJsonBody(limitBytes: number, beforeParse?: BeforeParse): RequestHandler {
  return (req, res, next) => {
    const h = req.headers;
    if (h["content-length"] === undefined || h["content-type"] === undefined || h["content-encoding"] !== undefined || h["transfer-encoding"] !== undefined) return next();
    const length = Number(h["content-length"]);
    if (!Number.isInteger(length) || length < 0 || length > limitBytes || !plainJsonType(h["content-type"])) return next();
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      req.removeListener("data", onData);
      if (err) return next(err);
      const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      // the request's 'error' and 'close' listeners keep this closure until the answer is sent: not the bytes
      chunks.length = 0;
      try {
        verifyBody(req, res, buf, "utf-8", beforeParse);
        // an empty body is {}, as express.json makes it
        const text = size === 0 ? undefined : buf.toString("utf8");
        req.body = text === undefined ? {} : JSON.parse(text);
        // the text as sent, for the request log (which drops it at once: src/scim/request-log/request-recorder.ts)
        if (text !== undefined) (req as unknown as Record<symbol, string>)[BODY_TEXT] = text;
      } catch (e) {
        return next(e instanceof SyntaxError ? bodyError("entity.parse.failed") : e);
      }
      next();
    };
    const onData = (chunk: Buffer) => { chunks.push(chunk); size += chunk.length; };
    req.on("data", onData);
    req.once("end", () => finish());
    req.once("error", () => finish(bodyError("request.aborted")));
    req.once("close", () => { if (!req.complete) finish(bodyError("request.aborted")); });
  };
}

/** The body reader for the SCIM media types, with the body limit, the checks above and `beforeParse`'s. */
export function scimJsonBody(types: string[], limitBytes: number, beforeParse?: BeforeParse): RequestHandler[] {
  return [
    plainJsonBody(limitBytes, beforeParse),
    express.json({ type: types, limit: limitBytes, strict: false, verify: (req, res, buf, encoding) => verifyBody(req, res, buf, encoding, beforeParse) }),
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
