/**
 * What becomes of the attributes a request names that this directory does not have (unknown extension
 * URNs, core attributes outside the schema, undeclared attributes of a declared extension):
 * - lenient (the default): the rest of the request is applied and the paths are made visible to the
 *   operator: a log line at info (paths only, never values) and the `ignored` list of the resource's
 *   activity event (src/activity/idp-activity.ts reads `res.locals.scimIgnored`);
 * - strict (`directories[].strict`): the request is refused before anything changes, as
 *   draft-zollner-scim-interop-profile asks, with 400 `invalidPath` for a PATCH and `invalidSyntax` for a
 *   POST or PUT body ([RFC7644§3.12] "invalidPath: The "path" attribute was invalid or malformed";
 *   "invalidSyntax: The request body message structure was invalid or did not conform to the request schema").
 */
import type { Response } from "express";
import { scimContext } from "../context";
import { ScimError } from "../errors";

/** Paths kept per request (the trail and the log line stay small whatever a request holds). */
const MAX_REPORTED = 50;

/** Refuses (strict) or records (lenient) the ignored paths of the current request. */
export function handleIgnored(res: Response, ignored: string[], scimType: "invalidPath" | "invalidSyntax"): void {
  if (!ignored.length) return;
  const c = scimContext(res);
  const paths = [...new Set(ignored)];
  if (c.strict) {
    const more = paths.length > 1 ? ` (and ${paths.length - 1} more)` : "";
    throw new ScimError(400, scimType, `'${paths[0]}'${more} is not an attribute this directory's schema has; declare it (User extensions) in the directory's "extensions" or turn "strict" off to have it ignored`);
  }
  const reported = paths.slice(0, MAX_REPORTED);
  res.locals.scimIgnored = reported;
  res.on("finish", () => {
    if (res.statusCode >= 200 && res.statusCode < 300) {
      c.logger?.info({ directoryId: c.directoryId, method: res.req.method, path: res.req.originalUrl.split("?")[0], ignored: reported, ignoredCount: paths.length }, "SCIM attributes this directory does not declare were ignored");
    }
  });
}
