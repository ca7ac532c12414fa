/**
 * Last Express handlers of the simulator: 404 for unknown routes and the renderer of every error.
 * SCIM paths get [RFC7644§3.12](https://datatracker.ietf.org/doc/html/rfc7644#section-3.12) bodies; REST and
 * embed paths get `{ "error": "<message>" }` (the contract does not show the shape; documented).
 */
import type { ErrorRequestHandler, RequestHandler } from "express";
import { SimError } from "./sim-error";

const SCIM_ERROR = "urn:ietf:params:scim:api:messages:2.0:Error";

/** Unknown route → 404. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new SimError(404, `no route for ${req.method} ${req.path}`));
};

/** Renders any error; a non-SimError is a 500 (a JSON parse failure is a 400). */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const parseFailure = (err as { type?: string }).type === "entity.parse.failed";
  const e =
    err instanceof SimError ? err : parseFailure ? new SimError(400, "request body is not valid JSON", "invalidSyntax") : new SimError(500, "internal error");
  if (!(err instanceof SimError) && !parseFailure) console.error("[simulator] unexpected error", err);
  for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
  if (req.originalUrl.startsWith("/api/scim/")) {
    res.status(e.status).type("application/scim+json").send(
      JSON.stringify({ schemas: [SCIM_ERROR], status: String(e.status), ...(e.scimType ? { scimType: e.scimType } : {}), detail: e.message }),
    );
    return;
  }
  res.status(e.status).json({ error: e.message });
};
