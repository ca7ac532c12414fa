/**
 * The status page's view of a directory's SCIM request log: a filterable list (newest first, the admin
 * API's filters as a GET form, a link to the next page) and one request's detail with both bodies, linked
 * to the resource's own view (its sync state and activity trail) when the request names one.
 */
import type { RequestLogEntry } from "../scim/request-log/request-log-entry";
import type { RequestLogFilters } from "../scim/request-log/request-log-query";
import { esc } from "./html";
import { itemHref } from "./item-page";

const base = (dir: string) => `/admin/status/${encodeURIComponent(dir)}/requests`;
const KIND: Record<string, string> = { User: "user", Group: "group" };

function resourceLink(dir: string, e: RequestLogEntry, trail = ""): string {
  const label = esc([e.resourceType, e.userName ?? e.displayName ?? e.resourceId].filter(Boolean).join(" ") || "—");
  const kind = e.resourceType ? KIND[e.resourceType] : undefined;
  return kind && e.resourceId && e.status < 400 ? `<a href="${itemHref(dir, kind, e.resourceId)}" data-trail-link>${label}${trail}</a>` : label;
}

function filterForm(dir: string, f: RequestLogFilters): string {
  const field = (name: keyof RequestLogFilters, label: string, placeholder: string) =>
    `<label>${label} <input name="${name}" value="${esc(f[name] ?? "")}" placeholder="${placeholder}" size="12"></label> `;
  return `<form method="get" action="${base(dir)}" role="search">${field("status", "Status", "4xx, 401")}${field("method", "Method", "POST")}`
    + `${field("resource", "Resource", "id or userName")}${field("q", "Text", "anything")}${field("since", "Since", "2026-11-28T12:00Z")}<button type="submit">Filter</button></form>`;
}

/** The list page's body. */
export function requestListBody(dir: string, f: RequestLogFilters, requests: RequestLogEntry[], next: string | null, error?: string): string {
  const rows = requests.map((e) => `<tr data-request="${esc(e.requestId)}"><td><time>${esc(e.at)}</time></td><td>${esc(e.method)}</td>
<td class="msg"><a href="${base(dir)}/${encodeURIComponent(e.requestId)}">${esc(e.path)}</a></td><td>${e.status}</td><td>${e.durationMs} ms</td>
<td>${resourceLink(dir, e)}</td><td>${esc(e.token ?? "")}</td><td class="msg">${esc([e.scimType, e.detail].filter(Boolean).join(": "))}</td></tr>`).join("");
  const more = next ? `<p><a href="${base(dir)}?${new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, v]) => v)), cursor: next } as Record<string, string>)}">Older requests →</a></p>` : "";
  return `<p><a href="/admin/status/${encodeURIComponent(dir)}">← ${esc(dir)}</a></p><h1>SCIM requests of ${esc(dir)}</h1>${filterForm(dir, f)}
${error ? `<p role="alert" class="failing">${esc(error)}</p>` : ""}
<table><thead><tr><th>Time</th><th>Method</th><th>Path</th><th>Status</th><th>Took</th><th>Resource</th><th>Token</th><th>Error</th></tr></thead>
<tbody>${rows || "<tr><td colspan=\"8\">No requests.</td></tr>"}</tbody></table>${more}`;
}

/** One request's page body. */
export function requestDetailBody(dir: string, e: RequestLogEntry): string {
  const body = (b: RequestLogEntry["request"]) => (b === undefined ? "<p>none</p>"
    : `<pre class="msg">${esc(b.body !== undefined ? JSON.stringify(b.body, null, 2) : b.text ?? "")}</pre>${b.truncated ? "<p>(cut at the directory's requestLog.maxBodyBytes)</p>" : ""}`);
  const row = (k: string, v: string) => `<tr><th>${k}</th><td>${v}</td></tr>`;
  return `<p><a href="${base(dir)}">← requests of ${esc(dir)}</a></p><h1>${esc(e.method)} ${esc(e.path)} — ${e.status}</h1>
<table><tbody>${row("Time", esc(e.at))}${row("Request id", esc(e.requestId))}${row("Took", `${e.durationMs} ms`)}${row("Resource", resourceLink(dir, e, " — its sync state and activity trail"))}
${row("Error", esc([e.scimType, e.detail].filter(Boolean).join(": ") || "—"))}${row("Token", esc(e.token ?? ""))}${row("Client", esc(e.client ?? ""))}${row("User agent", esc(e.userAgent ?? ""))}</tbody></table>
<h2>Request body</h2>${body(e.request)}<h2>Response body</h2>${body(e.response)}`;
}
