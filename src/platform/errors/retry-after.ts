/**
 * Parses `Retry-After`: "a non-negative decimal integer of seconds" or "an HTTP-date"
 * ([RFC9110§10.2.3](https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3)). Returns milliseconds from `now`
 * (never negative), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
