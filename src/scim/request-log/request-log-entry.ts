/**
 * One entry of a directory's SCIM request log, and how bodies enter it: secrets redacted, then capped.
 * Redacted: the value of every attribute whose name says it is a secret (password, any token or secret,
 * authorization, API keys, credentials), at any depth, and the value of a PATCH operation whose `path`
 * names one — `{"op":"replace","path":"password","value":"…"}` carries the password under `value`.
 * RFC 7643 §7: a `password` is "returned never"; it is not kept in the log either.
 */

/** A body as the log keeps it: the JSON itself (redacted), or, past the cap, its text cut there. */
export interface RequestLogBody {
  body?: unknown;
  /** The body's JSON text cut at the directory's `requestLog.maxBodyBytes` (then `truncated`). */
  text?: string;
  truncated?: boolean;
}

/** A body on its way into the log: its JSON text to embed as it is (`raw`), or a cut text. */
export interface LoggedBody {
  raw?: string;
  text?: string;
}

export interface RequestLogEntry {
  /** The entry's id in the log (newest-first paging goes on from it). */
  id: string;
  at: string;
  requestId: string;
  method: string;
  /** Path and query as the client sent them. */
  path: string;
  status: number;
  scimType?: string;
  detail?: string;
  durationMs: number;
  /** "User", "Group", "Search", "ServiceProviderConfig", … */
  resourceType?: string;
  resourceId?: string;
  userName?: string;
  displayName?: string;
  client?: string;
  userAgent?: string;
  /** The token's label, "unknown token", "no token", "OAuth access token". */
  token?: string;
  request?: RequestLogBody;
  response?: RequestLogBody;
}

/** An entry as the recorder makes it: its bodies still JSON text (see `serializeEntry`). */
export type NewRequestLogEntry = Omit<RequestLogEntry, "id" | "request" | "response"> & { request?: LoggedBody; response?: LoggedBody };

const SECRET_NAME = /pass(word|wd)|secret|token|authori[sz]ation|api[-_]?key|credential|private[-_]?key/i;
export const REDACTED = "[redacted]";

/** A copy of `value` with every secret replaced (see the header). */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 32) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (typeof value !== "object" || value === null) return value;
  const obj = value as Record<string, unknown>;
  const secretPath = typeof obj.path === "string" && SECRET_NAME.test(obj.path);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    out[k] = SECRET_NAME.test(k) || (secretPath && k.toLowerCase() === "value") ? REDACTED : redact(v, depth + 1);
  }
  return out;
}

/** `json` kept whole when it fits in `maxBytes` UTF-8 bytes, else its text cut there. */
function cap(json: string, maxBytes: number): LoggedBody {
  if (json.length <= maxBytes / 3 || Buffer.byteLength(json) <= maxBytes) return { raw: json };
  // a cut in the middle of a character drops that character (toString replaces its bytes with U+FFFD)
  return { text: Buffer.from(json).subarray(0, maxBytes).toString("utf8").replace(/\uFFFD$/, "") };
}

/**
 * A request body as it is logged: `text` the JSON the client sent (already parsed into `parsed`), when the
 * reader kept it; most bodies name no secret at all: only those that might are copied and walked.
 */
export function bodyOf(parsed: unknown, text: string | undefined, maxBytes: number): LoggedBody | undefined {
  if (parsed === undefined) return undefined;
  const json = text ?? JSON.stringify(parsed);
  return cap(SECRET_NAME.test(json) ? JSON.stringify(redact(parsed)) : json, maxBytes);
}

/** A response body (the JSON text sent) as it is logged. */
export function responseBodyOf(json: string, maxBytes: number): LoggedBody {
  if (!SECRET_NAME.test(json)) return cap(json, maxBytes);
  try {
    return cap(JSON.stringify(redact(JSON.parse(json))), maxBytes);
  } catch {
    return { text: REDACTED }; // not JSON and naming a secret: keep none of it
  }
}

/** The entry's JSON, its bodies embedded as the JSON they are (not re-encoded as strings). */
export function serializeEntry(entry: NewRequestLogEntry): string {
  const { request, response, ...rest } = entry;
  const part = (name: string, b: LoggedBody | undefined) => (b === undefined ? ""
    : b.raw !== undefined ? `,"${name}":{"body":${b.raw}}` : `,"${name}":${JSON.stringify({ text: b.text, truncated: true })}`);
  return `${JSON.stringify(rest).slice(0, -1)}${part("request", request)}${part("response", response)}}`;
}
