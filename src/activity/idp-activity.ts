/**
 * The IdP's part of the activity trail: after a SCIM write changes a resource (POST, PUT, PATCH, DELETE on
 * /Users or /Groups; the request's stores set `res.locals.scimChanged`, src/scim/app.ts), the method and the names of the attributes it set or changed are appended to the resource's
 * trail. Values are never kept (a `password` shows as the name "password" only). Member ids a group write
 * left out because they name nothing (`res.locals.scimSkippedMembers`, src/scim/resources/groups.ts) are
 * ids, not values: they are recorded (trail and an info log) even when nothing else changed, so an
 * operator sees why a member the IdP pushed is missing.
 * Paths the directory does not have, which the request named and which were ignored
 * (`res.locals.scimIgnored`, src/scim/extensions/ignored.ts), are recorded the same way (`ignored`).
 */
import type { Request, RequestHandler } from "express";
import type { Logger } from "pino";
import type { MinuteCounters } from "./minute-counters";
import type { SyncKind } from "../sync/state/sync-state";
import type { ActivityEvent, ActivityStore } from "./activity-store";

type Json = Record<string, unknown>;
const META = new Set(["schemas", "id", "meta"]);
/** Skipped member ids named in one trail event (the count names the rest). */
const SKIPPED_LISTED = 20;

/** Top-level names of a resource body; extension objects as `<urn>:<name>`. */
function bodyNames(body: unknown): string[] {
  if (typeof body !== "object" || body === null) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(body as Json)) {
    if (META.has(k)) continue;
    if (k.startsWith("urn:") && typeof v === "object" && v !== null && !Array.isArray(v)) out.push(...Object.keys(v as Json).map((n) => `${k}:${n}`));
    else out.push(k);
  }
  return out;
}

/** [RFC7644§3.5.2] each operation names its target by `path`, or (no path) by the keys of its value. */
function patchNames(body: unknown): string[] {
  const ops = (body as { Operations?: unknown; operations?: unknown } | undefined)?.Operations ?? (body as { operations?: unknown } | undefined)?.operations;
  if (!Array.isArray(ops)) return [];
  const out: string[] = [];
  for (const entry of ops as unknown[]) {
    // names are read before the route has checked the body: an entry that is no object names nothing
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
    const op = entry as Json;
    // (String() of a parsed {"toString": false} throws: only a string is a verb)
    const verb = typeof op.op === "string" ? op.op.toLowerCase() : "";
    if (typeof op.path === "string" && op.path) out.push(`${verb} ${op.path}`);
    else for (const n of bodyNames(op.value)) out.push(`${verb} ${n}`);
  }
  return out;
}

function attributeNames(req: Request): string[] {
  const names = req.method === "PATCH" ? patchNames(req.body) : req.method === "DELETE" ? [] : bodyNames(req.body);
  return [...new Set(names)].slice(0, 100);
}

/** Middleware for `/Users` (kind user) or `/Groups` (kind group). */
export function idpActivity(activity: ActivityStore | undefined, kind: SyncKind, counters?: MinuteCounters, logger?: Logger): RequestHandler {
  return (req, res, next) => {
    if (!activity || !["POST", "PUT", "PATCH", "DELETE"].includes(req.method) || req.path.startsWith("/.search")) return next();
    // the names now, not when the answer is sent: a route may let go of the parsed body before its write
    // (the group PATCH does, src/scim/resources/groups.ts)
    const attributes = attributeNames(req);
    res.on("finish", () => {
      const skipped = res.locals.scimSkippedMembers as string[] | undefined;
      const ignored = res.locals.scimIgnored as string[] | undefined;
      // a request that changed nothing (a PATCH repeating the current values) leaves no trace, unless it
      // skipped members or ignored attributes the directory does not have: the operator should see why
      if (res.statusCode < 200 || res.statusCode > 299 || (!res.locals.scimChanged && !skipped && !ignored?.length)) return;
      const directoryId = String((res.locals.scim as { directoryId?: string } | undefined)?.directoryId ?? req.params.directoryId);
      const id = req.method === "POST" ? String(res.getHeader("Location") ?? "").split("/").pop() : decodeURIComponent(req.path.split("/")[1] ?? "");
      if (!id) return;
      const requestId = String(res.getHeader("x-request-id") ?? "");
      const event: ActivityEvent = {
        type: "idp", at: new Date().toISOString(), method: req.method, status: res.statusCode, attributes,
        ...(ignored?.length ? { ignored } : {}), ...(requestId ? { requestId } : {}),
      };
      if (skipped) {
        const more = skipped.length > SKIPPED_LISTED ? ` and ${skipped.length - SKIPPED_LISTED} more` : "";
        event.message = `skipped ${skipped.length} member id(s) that name no user or group of the directory: ${skipped.slice(0, SKIPPED_LISTED).map((v) => v.slice(0, 200)).join(", ")}${more}`;
        logger?.info({ directoryId, kind, id, method: req.method, skipped: skipped.slice(0, SKIPPED_LISTED), skippedCount: skipped.length },
          "group write skipped member ids that do not exist");
      }
      if (res.locals.scimChanged) counters?.add(directoryId, "idp").catch(() => undefined);
      activity.append(directoryId, kind, id, [event]).catch(() => undefined);
    });
    next();
  };
}
