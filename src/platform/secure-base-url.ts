/**
 * Checks the platform `{base_url}`. "Only HTTPS is accepted": https is required, except for loopback hosts
 * (127.0.0.0/8, ::1, localhost), where the simulator and local tests run over plain http, and except when
 * the directory opts in with `platform.allowPlainHttp` (a simulator in another container, e.g. the compose
 * `demo` profile's `http://simulator:8090/api`). The real platform never answers plain http.
 */
import { PlatformConfigError } from "./errors/platform-config-error";

/** True for hosts that never leave the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Parses and checks `baseUrl`; returns its origin and path prefix (e.g. `/api`, no trailing slash).
 * `allowPlainHttp` accepts `http://` on any host (simulators only).
 */
export function parseBaseUrl(baseUrl: string, allowPlainHttp = false): { origin: string; basePath: string } {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    throw new PlatformConfigError(`platform baseUrl ${JSON.stringify(baseUrl)} is not an absolute URL; expected e.g. https://acme.example.com/api`);
  }
  // "Transport: only HTTPS is accepted."
  if (u.protocol !== "https:" && !(u.protocol === "http:" && (allowPlainHttp || isLoopbackHost(u.hostname)))) {
    throw new PlatformConfigError(
      `Only HTTPS is accepted: platform baseUrl must start with https:// (plain http:// is allowed only for loopback hosts such as 127.0.0.1, or with platform.allowPlainHttp for a simulator), got ${u.protocol}//${u.host}`,
    );
  }
  if (u.username || u.password || u.search || u.hash) throw new PlatformConfigError("platform baseUrl must not carry credentials, a query or a fragment");
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, "") };
}
