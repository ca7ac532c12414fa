/**
 * Authentication and deployment scope of the simulator, per platform-api.md "Authentication":
 * REST `Bearer`, embed `Api-Key`, SCIM either. 401 for a missing, malformed, unknown or expired
 * credential; 403 for a valid credential outside its target.
 */
import type { RequestHandler, Response } from "express";
import type { SimApiKey, SimConfig } from "./config";
import { SimError } from "./sim-error";

/** Authorization scheme names as sent on the wire. */
export type AuthScheme = "Bearer" | "Api-Key";

const UNAUTHORIZED = "credential missing, malformed or expired";

/** The key that authenticated this request (set by `authenticate`). */
export function authKey(res: Response): SimApiKey {
  return res.locals.simKey as SimApiKey;
}

/** Middleware accepting only the given schemes (scheme names compare case-insensitively, RFC 7235). */
export function authenticate(config: SimConfig, schemes: AuthScheme[]): RequestHandler {
  const accepted = schemes.map((s) => s.toLowerCase());
  const challenge = schemes.map((s) => `${s} realm="platform"`).join(", ");
  const fail = (why: string) => new SimError(401, `${UNAUTHORIZED}: ${why}`, undefined, { "WWW-Authenticate": challenge });
  return (req, res, next) => {
    const header = req.headers.authorization;
    // "401 means the credential is missing, malformed or expired"
    if (!header) return next(fail("no Authorization header"));
    const m = /^(\S+) (\S+)$/.exec(header);
    if (!m) return next(fail(`expected "${schemes.join(" <key>\" or \"")} <key>"`));
    if (!accepted.includes(m[1].toLowerCase())) return next(fail(`scheme ${m[1]} is not accepted here; use ${schemes.join(" or ")}`));
    const key = config.apiKeys.find((k) => k.key === m[2]);
    if (!key) return next(fail("unknown key"));
    if (key.expiresAt && Date.parse(key.expiresAt) <= Date.now()) return next(fail("key expired"));
    res.locals.simKey = key;
    next();
  };
}

/** True when the key is scoped (not "all deployments"). */
export function isScoped(key: SimApiKey): boolean {
  return key.deployments !== "all";
}

/** Throws 403 unless the key covers `deploymentId`. */
export function requireDeployment(key: SimApiKey, deploymentId: number): void {
  // "An API key may be scoped to specific deployments; it then authorizes only requests that target those
  // deployments, and a request for another deployment returns 403."
  if (key.deployments !== "all" && !key.deployments.includes(deploymentId)) {
    throw new SimError(403, `key not authorized for deployment ${deploymentId}`);
  }
}

/** Middleware for account-level paths: a scoped key gets 403 unless `scopedKeyAccountAccess` is "allow". */
export function requireAccountAccess(config: SimConfig, adminOnly = false): RequestHandler {
  return (_req, res, next) => {
    const key = authKey(res);
    // "An unscoped API key grants full access to the account's resources."
    if (isScoped(key) && config.scopedKeyAccountAccess === "forbid") {
      return next(new SimError(403, "key is scoped to deployments and not authorized for account-level resources"));
    }
    // "The embed-tenant admin endpoints require admin access"
    if (adminOnly && !key.admin) return next(new SimError(403, "key has no admin access"));
    next();
  };
}
