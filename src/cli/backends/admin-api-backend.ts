/**
 * The operator commands through a running bridge's admin API (`--url`, `--admin-token`, or the variables
 * SCIM_BRIDGE_URL and SCIM_BRIDGE_ADMIN_TOKEN): the bridge's own configuration and Redis are used, so
 * this works from any machine that reaches the server, e.g. against `npm run demo`.
 */
import type { DirectoryStatus } from "../../admin/directory-status";
import type { PlanReport, ResyncProgress } from "../../sync/resync/resync";
import type { HandoverResult } from "../../sync/ownership/ownership-handover";
import type { BrakeStatus } from "../../sync/brake/brake";
import { UnknownDirectoryError, type OpsBackend } from "./ops-backend";
import type { RequestLogPage } from "../../scim/request-log/request-log-store";
import { RequestLogFilterError } from "../../scim/request-log/request-log-query";
import type { Explanation } from "../../explain/explain";
import type { SyncNowResult } from "../../explain/sync-now";
import { SyncNowRefused, UnknownResourceError } from "../../explain/errors";

/** The admin API answered something the command cannot go on with. */
export class AdminApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = this.constructor.name;
  }
}

/** A backend on the admin API at `url` (the server's base URL, e.g. http://127.0.0.1:8080). */
export function adminApiBackend(url: string, token: string): OpsBackend {
  const base = url.replace(/\/+$/, "");
  const call = async (method: "GET" | "POST", path: string, json?: unknown): Promise<{ status: number; body: unknown }> => {
    let res: Response;
    try {
      const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: "application/json" };
      if (json !== undefined) headers["Content-Type"] = "application/json";
      res = await fetch(`${base}/admin${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new AdminApiError(`cannot reach the bridge at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* not JSON: keep the text */ }
    if (res.status === 401) throw new AdminApiError(`the admin API at ${base} refused the admin token (401): check --admin-token / SCIM_BRIDGE_ADMIN_TOKEN`);
    if (res.status === 429) throw new AdminApiError(`the admin API at ${base} answered 429 (too many failed sign-ins from this address); try again later`);
    return { status: res.status, body };
  };
  const expectOk = (r: { status: number; body: unknown }, what: string) => {
    if (r.status < 200 || r.status > 299) throw new AdminApiError(`${what}: the admin API answered ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const statuses = async () => expectOk(await call("GET", "/directories"), "GET /admin/directories") as DirectoryStatus[];
  const dirPath = (dir: string) => `/directories/${encodeURIComponent(dir)}`;
  return {
    statuses,
    requireDirectory: async (dir) => {
      const r = await call("GET", dirPath(dir));
      if (r.status === 404) throw new UnknownDirectoryError(dir, (await statuses()).map((d) => d.id));
      expectOk(r, `GET /admin${dirPath(dir)}`);
    },
    retryFailed: async (dir) => (expectOk(await call("POST", `${dirPath(dir)}/retry`), `POST /admin${dirPath(dir)}/retry`) as { retried: number }).retried,
    readResync: async (dir) => expectOk(await call("GET", `${dirPath(dir)}/resync`), `GET /admin${dirPath(dir)}/resync`) as ResyncProgress,
    requestDryRun: async (dir, by) => (expectOk(await call("POST", `${dirPath(dir)}/resync?dryRun=true`, { by }), `POST /admin${dirPath(dir)}/resync?dryRun=true`) as { plan: string }).plan,
    readPlan: async (dir) => {
      const r = await call("GET", `${dirPath(dir)}/resync/plan`);
      return r.status === 404 ? undefined : expectOk(r, `GET /admin${dirPath(dir)}/resync/plan`) as PlanReport;
    },
    keepName: async (dir, groupId, by) => {
      const path = `${dirPath(dir)}/groups/${encodeURIComponent(groupId)}/keep-name`;
      const r = await call("POST", path, { by });
      if (r.status === 404 || r.status === 409) return { ok: false, status: r.status, error: (r.body as { error: string }).error };
      return { ok: true, ...(expectOk(r, `POST /admin${path}`) as { name: string; group: string; displaced?: string }) };
    },
    handOver: async (req, by) => {
      const r = await call("POST", "/ownership/handover", { ...req, by });
      if (r.status === 400 || r.status === 404 || r.status === 409) return { ok: false, status: r.status, error: (r.body as { error: string }).error };
      return { ok: true, ...(expectOk(r, "POST /admin/ownership/handover") as Omit<Extract<HandoverResult, { ok: true }>, "ok">) };
    },
    answerResync: async (dir, action, by) => {
      const r = await call("POST", `${dirPath(dir)}/resync/${action}`, { by });
      if (r.status === 409) return { answered: false, reason: (r.body as { error: string }).error };
      const b = expectOk(r, `POST /admin${dirPath(dir)}/resync/${action}`) as { confirmed?: number; cancelled?: number; dropped?: number; resync: string };
      return { answered: true, resync: b.resync, count: b.confirmed ?? b.cancelled ?? 0, ...(b.dropped !== undefined ? { dropped: b.dropped } : {}) };
    },
    readBrake: async (dir) => expectOk(await call("GET", `${dirPath(dir)}/brake`), `GET /admin${dirPath(dir)}/brake`) as BrakeStatus,
    answerBrake: async (dir, action, by) => {
      const r = await call("POST", `${dirPath(dir)}/brake`, { action, by });
      if (r.status === 409) return { answered: false, reason: (r.body as { error: string }).error };
      const b = expectOk(r, `POST /admin${dirPath(dir)}/brake`) as { confirmed?: number; cancelled?: number };
      return { answered: true, count: b.confirmed ?? b.cancelled ?? 0 };
    },
    requestResync: async (dir) => {
      const r = await call("POST", `${dirPath(dir)}/resync`);
      if (r.status === 409) return { running: (r.body as { progress: ResyncProgress }).progress };
      expectOk(r, `POST /admin${dirPath(dir)}/resync`);
      return {};
    },
    readRequests: async (dir, filters) => {
      const query = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => typeof e[1] === "string")).toString();
      const r = await call("GET", `${dirPath(dir)}/requests${query ? `?${query}` : ""}`);
      if (r.status === 400) throw new RequestLogFilterError((r.body as { error: string }).error);
      if (r.status === 404) throw new UnknownDirectoryError(dir, (await statuses()).map((d) => d.id));
      return expectOk(r, `GET /admin${dirPath(dir)}/requests`) as RequestLogPage;
    },
    explain: async (dir, resource) => {
      const path = `${dirPath(dir)}/explain?${new URLSearchParams({ resource })}`;
      const r = await call("GET", path);
      if (r.status === 404) throw new UnknownResourceError(dir, resource);
      return expectOk(r, `GET /admin${path}`) as Explanation;
    },
    syncNow: async (dir, resource, by) => {
      const r = await call("POST", `${dirPath(dir)}/sync-now`, { resource, by });
      if (r.status === 404) throw new UnknownResourceError(dir, resource);
      if (r.status === 409) throw new SyncNowRefused((r.body as { error: string }).error);
      return expectOk(r, `POST /admin${dirPath(dir)}/sync-now`) as SyncNowResult;
    },
    resume: async (dir) => { expectOk(await call("POST", `${dirPath(dir)}/resume`), `POST /admin${dirPath(dir)}/resume`); },
    close: async () => undefined,
  };
}
