/**
 * Records every SCIM request to a directory in its request log (request-log-store.ts) once the answer is
 * sent: refused ones too (401 with the token's label or "unknown token", 403, 429, 4xx, 5xx). Mounted first
 * on `/scim/v2/:directoryId`, so it sees the authentication's answer; a path naming no directory records
 * nothing (no key is made for a guessed id). The entry is made after the answer and written in a batch
 * (request-log-writer.ts), off the request's path: a log that cannot be written costs the IdP nothing.
 * The answer's body is the text the SCIM sender leaves in `res.locals.scimResponseText` (scim-json.ts; an
 * answer streamed in chunks, a large group's, is not kept): the response object itself is not wrapped (a property added to it changes its shape, and every
 * express function that touches it slows down).
 */
import type { RequestHandler, Response } from "express";
import type { Logger } from "pino";
import type { DirectoryRegistry } from "../../directories/registry";
import { presentedToken } from "../../auth/token";
import type { RequestLogWriter } from "./request-log-writer";
import { bodyOf, responseBodyOf, type NewRequestLogEntry } from "./request-log-entry";
import { BODY_TEXT } from "../json-body";

const RESOURCE_TYPES: Record<string, string> = { Users: "User", Groups: "Group", ".search": "Search" };
const SINGLE_NAME = (name: string) => new RegExp(`"${name}":"((?:[^"\\\\]|\\\\.){0,512})"`);
const USER_NAME = SINGLE_NAME("userName");
const DISPLAY_NAME = SINGLE_NAME("displayName");

/**
 * After the body parser: the body as the log keeps it, made now (a route may let go of `req.body` before
 * its write, and a large body is not held until the answer: only its capped, redacted form is).
 */
export const keepRequestBody: RequestHandler = (req, res, next) => {
  const r = req as unknown as Record<symbol, string | undefined>;
  const settings = res.locals.requestLogSettings as { maxBodyBytes: number } | undefined;
  if (settings) {
    try {
      res.locals.requestLogBody = bodyOf(req.body, r[BODY_TEXT], settings.maxBodyBytes);
    } catch {
      res.locals.requestLogBody = { text: "[not kept]" }; // the log never fails a request
    }
    const b = req.body as Record<string, unknown> | undefined;
    if (typeof b === "object" && b !== null) {
      if (typeof b.userName === "string") res.locals.requestLogUserName = b.userName;
      if (typeof b.displayName === "string") res.locals.requestLogDisplayName = b.displayName;
    }
  }
  r[BODY_TEXT] = undefined;
  next();
};

/** The resource a request is about, from its path under `/scim/v2/<dir>` (and the Location of a create). */
function resourceOf(path: string, res: Response): { resourceType?: string; resourceId?: string } {
  const rest = path.split("/").filter(Boolean);
  if (!rest.length) return {};
  const resourceType = RESOURCE_TYPES[rest[0]] ?? rest[0].slice(0, 64);
  const location = res.getHeader("location");
  const fromLocation = typeof location === "string" ? location.slice(location.lastIndexOf("/") + 1) : undefined;
  const id = rest[1] && rest[1] !== ".search" ? safeDecode(rest[1]) : fromLocation;
  return { resourceType, ...(id ? { resourceId: id.slice(0, 256) } : {}) };
}

/** A path segment decoded, or as sent when it is not valid percent-encoding. */
function safeDecode(segment: string): string {
  try { return decodeURIComponent(segment); } catch { return segment; }
}

function unescapeJson(s: string): string {
  try { return JSON.parse(`"${s}"`) as string; } catch { return s; }
}

/** The names a request's body, else a single resource's answer, carries. */
function namesOf(res: Response, sent: string | undefined, single: boolean): { userName?: string; displayName?: string } {
  let userName = res.locals.requestLogUserName as string | undefined;
  let displayName = res.locals.requestLogDisplayName as string | undefined;
  if (single && sent) {
    userName ??= USER_NAME.exec(sent)?.[1] !== undefined ? unescapeJson(USER_NAME.exec(sent)![1]) : undefined;
    displayName ??= DISPLAY_NAME.exec(sent)?.[1] !== undefined ? unescapeJson(DISPLAY_NAME.exec(sent)![1]) : undefined;
  }
  return { ...(userName ? { userName: userName.slice(0, 512) } : {}), ...(displayName ? { displayName: displayName.slice(0, 512) } : {}) };
}

/** scimType and detail of a SCIM error answer (RFC 7644 §3.12). */
function errorOf(sent: string | undefined): { scimType?: string; detail?: string } {
  if (!sent) return {};
  try {
    const e = JSON.parse(sent) as { scimType?: unknown; detail?: unknown };
    return { ...(typeof e.scimType === "string" ? { scimType: e.scimType } : {}), ...(typeof e.detail === "string" ? { detail: e.detail.slice(0, 2000) } : {}) };
  } catch {
    return {};
  }
}

export function requestRecorder(writer: RequestLogWriter, registry: DirectoryRegistry, logger: Logger): RequestHandler {
  return (req, res, next) => {
    const directoryId = String(req.params.directoryId);
    const settings = registry.get(directoryId)?.dir.requestLog;
    if (!settings?.enabled) return next();
    const at = Date.now();
    const path = req.path; // under /scim/v2/<dir>, as the router sees it now
    res.locals.requestLogSettings = settings;
    const started = performance.now();
    res.once("finish", () => {
      // after the answer, on no request's stack: an entry that cannot be made is dropped, never thrown
      try {
        record();
      } catch (err) {
        logger.warn({ err, directory: directoryId }, "SCIM request log entry not made");
      }
    });
    const record = () => {
      const status = res.statusCode;
      const sent = res.locals.scimResponseText as string | undefined;
      const resource = resourceOf(path, res);
      const requestId = String(res.getHeader("x-request-id") ?? "");
      const entry: NewRequestLogEntry = {
        at: new Date(at).toISOString(), requestId, method: req.method, path: req.originalUrl.slice(0, 2048), status,
        ...(status >= 400 ? errorOf(sent) : {}),
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        ...resource,
        ...namesOf(res, sent, status < 300 && !!resource.resourceId),
        client: req.ip, userAgent: req.header("user-agent")?.slice(0, 256),
        token: (res.locals.scimTokenLabel as string | undefined) ?? registry.credentials.tokenLabel(directoryId, presentedToken(req.header("authorization")), false),
        request: res.locals.requestLogBody,
        response: sent === undefined ? undefined : responseBodyOf(sent, settings.maxBodyBytes),
      };
      writer.add(directoryId, entry, settings);
    };
    next();
  };
}
