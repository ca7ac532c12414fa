/**
 * The last handler of the admin router: every error becomes a small JSON body with the security headers,
 * never Express's default HTML page, which prints the error's stack with file paths outside production
 * (a malformed JSON sign-in or a malformed URL did that, before authentication). 4xx errors from the
 * body parsers and the router keep their status; a store that cannot be reached, or a change its
 * replicas did not acknowledge (`redis.replicaAck`), is a 503 with Retry-After, as on the SCIM API;
 * anything else is a 500 whose body says nothing about internals (the error goes to the log).
 */
import { STATUS_CODES } from "node:http";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import { isStoreUnavailable, StoreNotReplicatedError } from "../store";
import { securityHeaders } from "./security-headers";

/** The admin router's error handler. */
export function adminErrorHandler(logger?: Logger, retryAfterSeconds = 5): ErrorRequestHandler {
  const headers = securityHeaders();
  return (err, req, res, _next) => {
    if (isStoreUnavailable(err) && !res.headersSent) {
      const unreplicated = err instanceof StoreNotReplicatedError;
      logger?.warn({ err: { message: (err as Error).message }, path: req.path, method: req.method },
        unreplicated ? "admin change not acknowledged by the store's replicas" : "store unavailable");
      headers(req, res, () => undefined);
      res.setHeader("Retry-After", String(retryAfterSeconds));
      res.status(503).json({
        error: unreplicated
          // the change is on the master and may or may not survive a failover: the operator looks before retrying
          ? "the store could not confirm the change on its replicas: it may be lost in a failover; check it and retry later"
          : "the store cannot be reached; retry later",
      });
      return;
    }
    const s = (err as { status?: unknown; statusCode?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode;
    const status = typeof s === "number" && s >= 400 && s < 500 ? s : 500;
    if (status === 500) logger?.error({ err, path: req.path, method: req.method }, "unhandled error in admin request");
    if (res.headersSent) { res.destroy(); return; }
    headers(req, res, () => undefined);
    res.status(status).json({ error: (STATUS_CODES[status] ?? "Error").toLowerCase() });
  };
}
