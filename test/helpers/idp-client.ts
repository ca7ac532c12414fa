/**
 * A SCIM client that pushes to a bridge server process over HTTP the way an IdP does: one request at a
 * time per call, every reply recorded; the retrying calls retry a 503 after its `Retry-After` and a
 * request that got no answer (connection refused or reset), within a deadline. A create retried after a
 * lost answer may meet its own earlier write (409 `uniqueness`); like Okta, the client then looks the
 * userName up instead of failing.
 */

type Json = Record<string, unknown>;

/** One answer (status 0: no answer, `error` says why). */
export interface ScimReply {
  status: number;
  body: Json | undefined;
  retryAfter?: string;
  error?: string;
}

/** A reply as recorded in `IdpClient.log`. */
export interface LoggedReply {
  method: string;
  path: string;
  status: number;
  retryAfter?: string;
  scimType?: string;
  at: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An IdP's view of one directory of a bridge. */
export class IdpClient {
  /** Every reply, in arrival order. */
  readonly log: LoggedReply[] = [];

  constructor(public baseUrl: string, readonly directoryId: string, private readonly token: string, private readonly timeoutMs = 15000) {}

  /** Sends one request, no retry. */
  async send(method: string, path: string, body?: unknown): Promise<ScimReply> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: "application/scim+json" };
    if (body !== undefined) headers["Content-Type"] = "application/scim+json";
    let reply: ScimReply;
    try {
      const res = await fetch(`${this.baseUrl}/scim/v2/${this.directoryId}${path}`, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await res.text();
      reply = { status: res.status, body: text ? (JSON.parse(text) as Json) : undefined, retryAfter: res.headers.get("retry-after") ?? undefined };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      reply = { status: 0, body: undefined, error: e.cause?.code ?? e.cause?.message ?? e.message };
    }
    this.log.push({ method, path, status: reply.status, retryAfter: reply.retryAfter, scimType: reply.body?.scimType as string | undefined, at: Date.now() });
    return reply;
  }

  /**
   * Sends until the answer is neither 503 nor no-answer, or `deadlineMs` passes (then the last reply).
   * Waits `Retry-After` seconds after a 503 (1 s without one) and 250 ms after no answer.
   */
  async sendRetrying(method: string, path: string, body?: unknown, deadlineMs = 60000): Promise<{ reply: ScimReply; tries: number }> {
    const end = Date.now() + deadlineMs;
    for (let tries = 1; ; tries++) {
      const reply = await this.send(method, path, body);
      const retryable = reply.status === 503 || reply.status === 0;
      if (!retryable || Date.now() > end) return { reply, tries };
      await sleep(reply.status === 503 ? Number(reply.retryAfter ?? 1) * 1000 : 250);
    }
  }

  /** The id of the user with this userName, or undefined. */
  async findUserId(userName: string): Promise<string | undefined> {
    const { reply } = await this.sendRetrying("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    const found = (reply.body?.Resources as Json[] | undefined)?.[0];
    return found ? String(found.id) : undefined;
  }

  /**
   * Creates a user, retrying like an IdP; a retried POST that meets 409 `uniqueness` means the earlier
   * try was written and its answer lost, so the user is looked up. Returns the user's id (undefined if it
   * never got a final answer) and the status of each try. `sentBefore`: an earlier POST of this body got
   * no answer, so even the first 409 may be that POST's own write.
   */
  async createUser(body: Json, deadlineMs = 60000, sentBefore = false): Promise<{ id?: string; statuses: number[] }> {
    const statuses: number[] = [];
    const end = Date.now() + deadlineMs;
    for (;;) {
      const reply = await this.send("POST", "/Users", body);
      statuses.push(reply.status);
      if (reply.status === 201) return { id: String(reply.body!.id), statuses };
      if (reply.status === 409 && (sentBefore || statuses.length > 1)) return { id: await this.findUserId(String(body.userName)), statuses };
      if ((reply.status !== 503 && reply.status !== 0) || Date.now() > end) return { statuses };
      await sleep(reply.status === 503 ? Number(reply.retryAfter ?? 1) * 1000 : 250);
    }
  }
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight. */
export async function inPool<T>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(lanes);
}
