/**
 * Admin authentication for people and programs. Programs send `Authorization: Bearer <admin token>`.
 * People sign in once on the status page with the same token; the bridge then keeps a random session id
 * in Redis (AdminSessionStore, src/store/admin-session-store.ts; 8 h) and in an HttpOnly, SameSite=Strict cookie: the token
 * itself is never stored in the browser. Admin tokens and SCIM tokens are different hash lists.
 */
import { randomBytes } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { AdminSessionStore, type RedisConnection } from "../store";
import { presentedToken, tokenMatches } from "../auth/token";

export const SESSION_COOKIE = "sb_admin";
const SESSION_TTL_S = 8 * 3600;

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.header("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return undefined;
}

/** How a request authenticates: a valid token or live session, a wrong token, or no credentials at all. */
export type AdminAuth = "ok" | "wrong-token" | "none";

/** Admin sessions on Redis. */
export class AdminSessions {
  private readonly hashes: Buffer[];
  private readonly store: AdminSessionStore;
  constructor(redis: RedisConnection, keyPrefix: string, tokenHashes: string[]) {
    this.hashes = tokenHashes.map((h) => Buffer.from(h, "hex"));
    this.store = new AdminSessionStore(redis, keyPrefix);
  }

  /** True for a valid admin token. */
  tokenValid(token: string | undefined): boolean {
    return tokenMatches(token, this.hashes);
  }

  /** Is this request authenticated (Bearer admin token or a live session cookie), or does it carry a wrong token? */
  async authenticate(req: Request): Promise<AdminAuth> {
    const header = req.header("authorization");
    if (header && /^Bearer\s/i.test(header)) return this.tokenValid(presentedToken(header)) ? "ok" : "wrong-token";
    const sid = cookie(req, SESSION_COOKIE);
    if (!sid || !/^[A-Za-z0-9_-]{20,64}$/.test(sid)) return "none";
    return (await this.store.exists(sid)) ? "ok" : "none";
  }

  /** Starts a session and sets its cookie. */
  async start(req: Request, res: Response): Promise<void> {
    const sid = randomBytes(24).toString("base64url");
    await this.store.create(sid, SESSION_TTL_S);
    const secure = req.secure ? "; Secure" : "";
    res.setHeader("Set-Cookie", `${SESSION_COOKIE}=${sid}; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=${SESSION_TTL_S}${secure}`);
  }

  /** Ends the session of this request. */
  async end(req: Request, res: Response): Promise<void> {
    const sid = cookie(req, SESSION_COOKIE);
    if (sid) await this.store.remove(sid);
    res.setHeader("Set-Cookie", `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/admin; Max-Age=0`);
  }

  /**
   * Middleware: JSON 401 (or the login page for HTML requests, via `onHtml`) unless authenticated. A wrong
   * token is first handed to `onWrongToken`, which may answer instead (the failed-authentication limit).
   */
  require(onHtml?: (req: Request, res: Response) => void, onWrongToken?: (req: Request, res: Response) => Promise<boolean>): RequestHandler {
    return async (req, res, next) => {
      const auth = await this.authenticate(req);
      if (auth === "ok") return next();
      if (auth === "wrong-token" && onWrongToken && await onWrongToken(req, res)) return;
      if (onHtml && req.method === "GET" && req.accepts(["json", "html"]) === "html") return onHtml(req, res);
      res.setHeader("WWW-Authenticate", "Bearer realm=\"scim-bridge-admin\"");
      res.status(401).json({ error: "admin token missing or invalid" });
    };
  }
}
