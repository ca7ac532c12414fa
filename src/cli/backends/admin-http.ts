/**
 * One admin API call from the CLI (for the commands that only exist through a running bridge, such as
 * `directory …`): JSON in and out, the bridge's refusals turned into messages for the operator.
 */
import { AdminApiError } from "./admin-api-backend";

export interface AdminTarget {
  url: string;
  token: string;
}

export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** Calls `/admin<path>`; 401 and 429 and unreachable bridges throw `AdminApiError`. */
export async function adminCall(t: AdminTarget, method: string, path: string, body?: unknown): Promise<AdminAnswer> {
  const base = t.url.replace(/\/+$/, "");
  let res: Response;
  try {
    res = await fetch(`${base}/admin${path}`, {
      method,
      headers: { Authorization: `Bearer ${t.token}`, Accept: "application/json", ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new AdminApiError(`cannot reach the bridge at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON: keep the text */ }
  if (res.status === 401) throw new AdminApiError(`the admin API at ${base} refused the admin token (401): check --admin-token / SCIM_BRIDGE_ADMIN_TOKEN`);
  if (res.status === 429) throw new AdminApiError(`the admin API at ${base} answered 429 (too many failed sign-ins from this address); try again later`);
  return { status: res.status, body: parsed };
}

/** The body of a 2xx answer; otherwise an `AdminApiError` with the bridge's error and issues. */
export function expectOk<T>(a: AdminAnswer, what: string): T {
  if (a.status >= 200 && a.status < 300) return a.body as T;
  const b = a.body as { error?: string; issues?: string[] } | string;
  const message = typeof b === "object" && b?.error ? `${b.error}${b.issues ? `\n${b.issues.join("\n")}` : ""}` : JSON.stringify(b);
  throw new AdminApiError(`${what}: ${a.status} ${message}`);
}
