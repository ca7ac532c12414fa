/**
 * The one place that turns a platform answer into an error class (the sync engine decides on the class):
 * 401 → AuthError, 403 → ScopeError, 429 → RateLimitedError, 5xx → TransientError, other 4xx →
 * ValidationError. The message is read from `{error}` (REST and embed, as the simulator documents),
 * SCIM `{detail}`, or `{message}`, word for word.
 */
import { AuthError } from "./auth-error";
import type { PlatformError } from "./platform-error";
import { RateLimitedError } from "./rate-limited-error";
import { parseRetryAfter } from "./retry-after";
import { ScopeError } from "./scope-error";
import { TransientError } from "./transient-error";
import { ValidationError } from "./validation-error";

/** Message carried by an error body, whatever its shape. */
export function messageOf(body: unknown, status: number): string {
  if (typeof body === "string" && body.trim()) return body.trim().slice(0, 500);
  if (typeof body === "object" && body !== null) {
    const b = body as Record<string, unknown>;
    for (const k of ["error", "detail", "message"]) {
      if (typeof b[k] === "string" && b[k]) return b[k] as string;
      const nested = b[k] as { message?: unknown } | undefined;
      if (typeof nested?.message === "string") return nested.message;
    }
  }
  return `HTTP ${status}`;
}

/** The error for a non-2xx answer. */
export function errorFromResponse(status: number, body: unknown, headers: Record<string, string | string[] | undefined>, requestId?: string,
  messageFailureStatuses: number[] = []): PlatformError {
  const message = messageOf(body, status);
  // a status configured as the platform's message-bearing failure is a validation failure whatever its class
  if (messageFailureStatuses.includes(status) && status !== 401 && status !== 403 && status !== 429) {
    return new ValidationError(status, message, requestId);
  }
  if (status === 401) return new AuthError(message, requestId);
  if (status === 403) return new ScopeError(message, requestId);
  if (status === 429) return new RateLimitedError(message, parseRetryAfter(headers["retry-after"]), requestId);
  if (status >= 500) return new TransientError(status, message, requestId);
  const scimType = typeof body === "object" && body !== null ? (body as { scimType?: unknown }).scimType : undefined;
  return new ValidationError(status, message, requestId, typeof scimType === "string" ? scimType : undefined);
}
