/**
 * RFC 9865 cursors: the position of a cursor walk sealed with AES-256-GCM under the deployment's key, so a
 * client can neither read nor forge one, bound to the directory, the endpoint and the query it was issued
 * for, and valid for `scim.cursorTimeoutSeconds`.
 *
 * RFC 9865 §2: the cursor "value may only contain characters from the unreserved characters set defined in
 * section 2.2 of [RFC3986]" — base64url is.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { ScimError } from "../errors";
import type { CursorKeyStore } from "./cursor-key-store";

/** Where a walk stands: creation order (`q`: the last creation sequence passed) or sort order (`k`, `i`). */
export type CursorPosition =
  | { s: number; q: number }
  | { s: number; k: string | number | boolean | null; i: string };

/** What a cursor is bound to: a cursor of one query is refused by any other. */
export interface CursorScope {
  directoryId: string;
  /** "Users", "Groups" or "" (the server root). */
  endpoint: string;
  /** The filter and sort of the query, as parsed. */
  query: unknown;
}

interface Sealed { d: string; e: string; h: string; x: number; p: CursorPosition }

const IV = 12;
const TAG = 16;

function queryHash(query: unknown): string {
  return createHash("sha256").update(JSON.stringify(query ?? null)).digest("base64url").slice(0, 16);
}

// RFC 9865 §2.2: "invalidCursor: Cursor value is invalid. Cursor value SHOULD be empty to request the first
// page and set to the nextCursor or previousCursor value for subsequent queries."
const invalid = () => new ScimError(400, "invalidCursor",
  "Cursor value is invalid: send an empty cursor for the first page, then the nextCursor of the previous page with the same filter and sort");

export class CursorCodec {
  constructor(private readonly keys: CursorKeyStore, private readonly timeoutSeconds: number) {}

  /** Seals `position` for the next request of the same query. */
  async seal(scope: CursorScope, position: CursorPosition, now = Date.now()): Promise<string> {
    const body: Sealed = { d: scope.directoryId, e: scope.endpoint, h: queryHash(scope.query), x: Math.floor(now / 1000) + this.timeoutSeconds, p: position };
    const iv = randomBytes(IV);
    const c = createCipheriv("aes-256-gcm", await this.keys.get(), iv);
    const data = Buffer.concat([c.update(JSON.stringify(body), "utf8"), c.final()]);
    return Buffer.concat([iv, data, c.getAuthTag()]).toString("base64url");
  }

  /** The position of `cursor`; 400 invalidCursor when it was not sealed here for this query, 400 expiredCursor when too old. */
  async open(scope: CursorScope, cursor: string, now = Date.now()): Promise<CursorPosition> {
    const raw = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url") : Buffer.alloc(0);
    if (raw.length <= IV + TAG) throw invalid();
    let body: Sealed;
    try {
      const d = createDecipheriv("aes-256-gcm", await this.keys.get(), raw.subarray(0, IV));
      d.setAuthTag(raw.subarray(raw.length - TAG));
      body = JSON.parse(Buffer.concat([d.update(raw.subarray(IV, raw.length - TAG)), d.final()]).toString("utf8")) as Sealed;
    } catch {
      throw invalid();
    }
    if (body.d !== scope.directoryId || body.e !== scope.endpoint || body.h !== queryHash(scope.query)) throw invalid();
    // RFC 9865 §2.2: "expiredCursor: Cursor has expired. Do not wait longer than cursorTimeout … to request additional pages."
    if (body.x * 1000 < now) {
      throw new ScimError(400, "expiredCursor", `Cursor has expired: do not wait longer than cursorTimeout (${this.timeoutSeconds} s) between pages`);
    }
    return body.p;
  }
}
