/**
 * SCIM errors: the one class our code throws (`ScimError`) and the renderer that turns anything thrown
 * into an RFC 7644 §3.12 body. Nothing else in src/scim writes an error response.
 *
 * [RFC7644§3.12](https://datatracker.ietf.org/doc/html/rfc7644#section-3.12): "The JSON body of an error
 * response contains the following attributes: status … scimType … detail".
 */
import type { ErrorRequestHandler, Response } from "express";
import type { Logger } from "pino";
import { isEngineMessage } from "./engine-message";
import { isStoreUnavailable, StoreNotReplicatedError } from "../store/errors";
import { sendScimJson } from "./scim-json";

export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/** scimType values of RFC 7644 §3.12 Table 9, and those RFC 9865 §2.2 adds for cursor pagination. */
export type ScimType =
  | "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax"
  | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers" | "sensitive"
  | "invalidCursor" | "expiredCursor" | "invalidCount";

/** An error whose status, scimType and detail go to the client as they are. */
export class ScimError extends Error {
  /** What a library said that the detail does not repeat (logged, never sent). */
  internal?: string;
  constructor(readonly status: number, readonly scimType: ScimType | undefined, detail: string, readonly headers: Record<string, string> = {}) {
    super(detail);
    this.name = this.constructor.name;
  }
}

/** A store call that failed because Redis could not be reached: 503 + Retry-After, never a 404. */
export class UnavailableError extends Error {
  constructor(message = "Service temporarily unavailable: the directory store cannot be reached") {
    super(message);
    this.name = this.constructor.name;
  }
}

/** Sends an RFC 7644 error body with Content-Type application/scim+json. */
export function sendScimError(res: Response, status: number, scimType: string | undefined, detail: string): void {
  if (res.headersSent) return;
  sendScimJson(res.status(status), JSON.stringify({
    schemas: [ERROR_SCHEMA],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail,
  }));
}

/** True for errors that mean the directory store is not there (store/errors.ts `isStoreUnavailable`). */
export function isRedisUnavailable(err: unknown): boolean {
  return err instanceof UnavailableError || isStoreUnavailable(err);
}

interface HttpishError { status?: number; statusCode?: number; type?: string; scimType?: string; expose?: boolean }

/**
 * The last error handler of the SCIM app: every error becomes a SCIM body. Body-parser errors keep their
 * 4xx meaning; SCIMMY's own errors keep status and scimType; Redis outages are 503 with Retry-After;
 * anything else is a 500 whose detail says nothing about internals (the stack goes to the log only).
 */
export function scimErrorHandler(logger: Logger, retryAfterSeconds: number): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof ScimError) {
      if (err.internal) logger.warn({ path: req.path, method: req.method, detail: err.message, library: err.internal }, "library error text replaced in a SCIM error");
      for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
      return sendScimError(res, err.status, err.scimType, err.message);
    }
    if (isRedisUnavailable(err)) {
      const unreplicated = err instanceof StoreNotReplicatedError;
      logger.warn({ err: { message: (err as Error).message }, path: req.path, method: req.method },
        unreplicated ? "write not acknowledged by the store's replicas" : "store unavailable");
      res.setHeader("Retry-After", String(retryAfterSeconds));
      return sendScimError(res, 503, undefined, `Service temporarily unavailable: the directory store ${unreplicated ? "could not confirm the write on its replicas" : "cannot be reached"}; retry later`);
    }
    const e = err as HttpishError & Error;
    if (e.type === "entity.too.large") return sendScimError(res, 413, undefined, "Request body is larger than the configured limit");
    if (e.type === "entity.parse.failed") return sendScimError(res, 400, "invalidSyntax", "Request body is not valid JSON");
    if (e.type === "encoding.unsupported" || e.type === "charset.unsupported") return sendScimError(res, 415, undefined, "Unsupported content encoding or charset");
    if (e.type === "request.aborted") return sendScimError(res, 400, "invalidSyntax", "Request aborted");
    const status = e.status ?? e.statusCode;
    // a library's 4xx keeps its status and scimType; its text only when no JavaScript engine wrote it
    if (typeof status === "number" && status >= 400 && status < 500) {
      if (!isEngineMessage(e.message ?? "")) return sendScimError(res, status, e.scimType ?? undefined, e.message || "Bad request");
      logger.warn({ path: req.path, method: req.method, library: e.message }, "library error text replaced in a SCIM error");
      return sendScimError(res, status, e.scimType ?? undefined, "The request does not fit the resource's schema");
    }
    logger.error({ err, path: req.path, method: req.method }, "unhandled error in SCIM request");
    return sendScimError(res, 500, undefined, "Internal server error");
  };
}
