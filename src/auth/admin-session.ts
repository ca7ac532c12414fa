/**
 * Admin authentication for people and programs. Programs send `Authorization: Bearer <admin token>`.
 * People sign in once on the status page with the same token; the bridge then keeps a random session id
 * in Redis (AdminSessionStore, src/auth/admin-session-store.ts; 8 h) and in an HttpOnly, SameSite=Strict cookie: the token
 * itself is never stored in the browser. Admin tokens and SCIM tokens are different hash lists.
 * A session keeps a form token; a state-changing request made with the cookie must carry it and come from
 * the bridge's own origin (src/admin/forgery/). A request with the Bearer token needs neither.
 */
import { randomBytes } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { type RedisConnection } from "../store";
import { AdminSessionStore } from "./admin-session-store";
import { presentedToken, tokenMatches } from "./token";
import { newFormToken, withFormToken } from "../admin/forgery/form-token";

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

/** Who an authenticated request is: a program with the Bearer token, or a signed-in person's session. */
export type AdminCaller = { via: "token" } | { via: "session"; formToken: string };

/** The caller of a request that passed `require` (res.locals). */
export function adminCaller(res: Response): AdminCaller | undefined {
  return res.locals.adminCaller as AdminCaller | undefined;
}

/** A form token as newFormToken makes them (a session stored before form tokens existed has none). */
const FORM_TOKEN = /^[A-Za-z0-9_-]{32}$/;

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

  /** The caller of this request (Bearer admin token or a live session cookie), or why there is none. */
  async identify(req: Request): Promise<AdminCaller | Exclude<AdminAuth, "ok">> {
    const header = req.header("authorization");
    if (header && /^Bearer\s/i.test(header)) return this.tokenValid(presentedToken(header)) ? { via: "token" } : "wrong-token";
    const sid = cookie(req, SESSION_COOKIE);
    if (!sid || !/^[A-Za-z0-9_-]{20,64}$/.test(sid)) return "none";
    const formToken = await this.store.formToken(sid);
    return formToken && FORM_TOKEN.test(formToken) ? { via: "session", formToken } : "none";
  }

  /** Starts a session and sets its cookie. */
  async start(req: Request, res: Response): Promise<void> {
    const sid = randomBytes(24).toString("base64url");
    await this.store.create(sid, SESSION_TTL_S, newFormToken());
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
      const auth = await this.identify(req);
      if (typeof auth === "object") {
        res.locals.adminCaller = auth;
        // pages rendered for a signed-in person put the session's form token in their forms
        return auth.via === "session" ? withFormToken(auth.formToken, next) : next();
      }
      if (auth === "wrong-token" && onWrongToken && await onWrongToken(req, res)) return;
      if (onHtml && req.method === "GET" && req.accepts(["json", "html"]) === "html") return onHtml(req, res);
      res.setHeader("WWW-Authenticate", "Bearer realm=\"scim-bridge-admin\"");
      res.status(401).json({ error: "admin token missing or invalid" });
    };
  }
}
