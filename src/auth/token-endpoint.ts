/**
 * OAuth 2.0 client credentials grant (RFC 6749 §4.4) for IdPs that prefer it to a long-lived token
 * (Entra's "OAuth 2 Client Credentials Grant"). The client id is the directory id; client secrets are
 * the directory's credentials of kind "client-secret" (hashes only, several live at once for rotation).
 * An access token is random, stored as its SHA-256 under the directory's hash tag with a TTL, and is
 * accepted on that directory's SCIM URL only (RFC 6750 bearer token).
 */
import { createHash, randomBytes } from "node:crypto";
import express, { type Request, type Response, type Router } from "express";
import { AuthFailureLimiter } from "./auth-failures";
import type { Config } from "../config/schema";
import { DIRECTORY_ID } from "../config/schema";
import type { DirectoryRegistry } from "../directories/registry";
import { AuthFailureKeys } from "./auth-failure-keys";

type OAuthError = "invalid_request" | "invalid_client" | "unauthorized_client" | "unsupported_grant_type";

/*
 * [RFC6749§5.2] "The authorization server responds with an HTTP 400 (Bad Request) status code (unless
 * specified otherwise) and includes the following parameters with the response: error, error_description".
 * invalid_client: "The authorization server MAY return an HTTP 401 (Unauthorized) status code to indicate
 * which HTTP authentication schemes are supported. If the client attempted to authenticate via the
 * "Authorization" request header field, the authorization server MUST respond with an HTTP 401
 * (Unauthorized) status code and include the "WWW-Authenticate" response header field matching the
 * authentication scheme used by the client."
 */
function fail(res: Response, error: OAuthError, description: string, basic = false): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Pragma", "no-cache");
  if (error === "invalid_client") {
    res.setHeader("WWW-Authenticate", basic ? "Basic realm=\"scim-bridge\", charset=\"UTF-8\"" : "Basic realm=\"scim-bridge\"");
    res.status(401);
  } else res.status(400);
  res.json({ error, error_description: description });
}

/** [RFC6749§2.3.1] Basic credentials are the form-urlencoded client id and secret, joined by ":" and base64-encoded. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | "malformed" | undefined {
  if (!header || !/^Basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, "").trim(), "base64").toString("utf8");
  const i = decoded.indexOf(":");
  if (i < 0) return "malformed";
  try {
    const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: dec(decoded.slice(0, i)), secret: dec(decoded.slice(i + 1)) };
  } catch {
    return "malformed";
  }
}

export interface TokenEndpointDeps {
  config: Config;
  registry: DirectoryRegistry;
  limiter: AuthFailureLimiter;
}

/** `POST /oauth/token`. */
export function tokenEndpoint({ config, registry, limiter }: TokenEndpointDeps): Router {
  const keys = new AuthFailureKeys(config.redis.keyPrefix);
  const r = express.Router();
  r.post("/oauth/token", express.urlencoded({ extended: false, limit: "8kb" }), async (req: Request, res: Response) => {
    // [RFC6749§4.4.2] "The client makes a request to the token endpoint by adding the following parameters
    // using the "application/x-www-form-urlencoded" format"
    if (!req.is("application/x-www-form-urlencoded")) return fail(res, "invalid_request", "send the parameters as application/x-www-form-urlencoded");
    const body = (req.body ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(body)) {
      // [RFC6749§3.2] "Request and response parameters MUST NOT be included more than once."
      if (Array.isArray(v)) return fail(res, "invalid_request", `parameter ${k} given more than once`);
    }
    const basic = basicCredentials(req.header("authorization"));
    if (basic === "malformed") return fail(res, "invalid_client", "malformed Basic credentials", true);
    const inBody = body.client_id !== undefined || body.client_secret !== undefined;
    // [RFC6749§2.3] "The client MUST NOT use more than one authentication method in each request."
    if (basic && inBody) return fail(res, "invalid_request", "authenticate with HTTP Basic or with client_id and client_secret in the body, not both");
    const grant = body.grant_type;
    if (grant === undefined) return fail(res, "invalid_request", "grant_type is required");
    const clientId = basic?.id ?? (typeof body.client_id === "string" ? body.client_id : undefined);
    const secret = basic?.secret ?? (typeof body.client_secret === "string" ? body.client_secret : undefined);
    if (!clientId || secret === undefined) return fail(res, "invalid_client", "client authentication is required (HTTP Basic, or client_id and client_secret)", !!basic);

    // client authentication before anything that tells a caller about the grant it asked for
    if (!registry.credentials.authenticateClient(clientId, secret)) {
      const wait = await limiter.fail(keys.directory(DIRECTORY_ID.test(clientId) ? clientId : undefined, req.ip ?? "unknown"));
      if (wait) {
        res.setHeader("Retry-After", String(wait));
        res.status(429).json({ error: "invalid_client", error_description: "too many failed client authentications from this address; retry later" });
        return;
      }
      return fail(res, "invalid_client", "unknown client or wrong secret", !!basic);
    }
    if (grant !== "client_credentials") return fail(res, "unsupported_grant_type", "only grant_type=client_credentials is supported");
    if (registry.get(clientId)?.disabled) return fail(res, "unauthorized_client", `directory "${clientId}" is disabled`);
    const records = registry.records;
    if (!records) return fail(res, "invalid_request", "token issuing needs the Redis registry");

    const token = randomBytes(32).toString("base64url");
    const ttl = config.oauth.accessTokenTtlSeconds;
    await records.addAccessToken(clientId, createHash("sha256").update(token, "utf8").digest("hex"), ttl);
    // [RFC6749§5.1] "The authorization server MUST include the HTTP "Cache-Control" response header field
    // [RFC2616] with a value of "no-store" in any response containing tokens, credentials, or other
    // sensitive information, as well as the "Pragma" response header field [RFC2616] with a value of "no-cache"."
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Pragma", "no-cache");
    res.json({ access_token: token, token_type: "Bearer", expires_in: ttl });
  });
  return r;
}
