/**
 * The guided "add a directory" form: one field per setting a new directory needs (id, name, target,
 * platform account, API key variable, embed tenant), the optional ones with their defaults, and any
 * other setting as JSON. The form's values become the object a config file's `directories[]` entry holds
 * and go through the same validation (src/directories/validate.ts: the config's zod schema, then the
 * runtime checks); each problem is shown next to the field it names. No refresh: a person types here.
 */
import { formTokenField } from "./forgery/form-token";
import { esc } from "./html";
import { page } from "./layout";

interface Field {
  name: string;
  label: string;
  hint: string;
  type?: "text" | "number" | "url" | "select";
  options?: string[];
  required?: boolean;
  placeholder?: string;
}

/** The form's fields, named by the setting's path. */
export const FIELDS: Field[] = [
  { name: "id", label: "Id", hint: "Lower-case letters, digits and '-'; part of the SCIM base URL (/scim/v2/<id>).", required: true, placeholder: "acme" },
  { name: "displayName", label: "Display name", hint: "For people reading this page (optional)." },
  { name: "target", label: "Target", hint: "workforce: platform users and groups; embed: an embed tenant's external users.", type: "select", options: ["workforce", "embed"], required: true },
  { name: "platform.baseUrl", label: "Platform base URL", hint: "The account's API base URL, including /api (https only).", type: "url", required: true, placeholder: "https://acme.example.com/api" },
  { name: "platform.deploymentId", label: "Deployment id", hint: "The deployment the API key must cover.", type: "number", required: true, placeholder: "1" },
  { name: "platform.apiKeyEnv", label: "API key variable", hint: "Name of the environment variable holding the platform API key on the workers (never the key).", required: true, placeholder: "PLATFORM_API_KEY" },
  { name: "embed.tenantName", label: "Embed tenant name", hint: "Embed target only: 5–36 characters of a-z, 0-9 and '-'." },
  { name: "rateLimit.max", label: "Platform calls per second", hint: "Optional (default 50).", type: "number" },
  { name: "concurrency", label: "Concurrency", hint: "Optional: reconciles of this directory at once (default 8).", type: "number" },
  { name: "resyncSchedule", label: "Resync schedule", hint: "Optional cron expression of a scheduled full resync, e.g. 0 3 * * *." },
];

export type FormValues = Record<string, string>;

function setPath(o: Record<string, unknown>, path: string, v: unknown): void {
  const parts = path.split(".");
  let at = o;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
  at[parts[parts.length - 1]!] = v;
}

/** The directory the form describes, or the problem of its JSON field (`more`). */
export function directoryFromForm(values: FormValues): { input: Record<string, unknown> } | { more: string } {
  let input: Record<string, unknown> = {};
  const more = (values.more ?? "").trim();
  if (more) {
    try {
      const parsed = JSON.parse(more) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { more: "expected a JSON object of further settings" };
      input = parsed as Record<string, unknown>;
    } catch (err) {
      return { more: `not valid JSON: ${(err as Error).message}` };
    }
  }
  for (const f of FIELDS) {
    const raw = (values[f.name] ?? "").trim();
    if (!raw) continue;
    if (f.name === "embed.tenantName" && values.target !== "embed") continue;
    // a number field that is not a number stays text, so the schema names the field and what it expects
    setPath(input, f.name, f.type === "number" && /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw);
  }
  return { input };
}

/** Validation lines ("- platform.baseUrl: …") sorted to the field they name; the rest under "". */
export function issuesByField(issues: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const names = FIELDS.map((f) => f.name).concat("more");
  for (const line of issues) {
    const m = /^- ([^:]+): ([^]*)$/.exec(line);
    const path = m?.[1] ?? "";
    const field = names.find((n) => path === n) ?? names.find((n) => path.startsWith(`${n}.`) || (path === "embed" && n === "embed.tenantName")) ?? "";
    const list = out.get(field) ?? [];
    list.push(field && m ? m[2]! : line);
    out.set(field, list);
  }
  return out;
}

function fieldHtml(f: Field, value: string, errors: string[] = []): string {
  const id = `f-${f.name.replace(/\./g, "-")}`;
  const err = errors.length ? `<div class="error" id="${id}-error" data-error-for="${esc(f.name)}">${errors.map(esc).join("<br>")}</div>` : "";
  const aria = `aria-describedby="${id}-hint${errors.length ? ` ${id}-error` : ""}"${errors.length ? " aria-invalid=\"true\"" : ""}`;
  const control = f.type === "select"
    ? `<select id="${id}" name="${esc(f.name)}" ${aria}>${(f.options ?? []).map((o) => `<option${o === value ? " selected" : ""}>${esc(o)}</option>`).join("")}</select>`
    : `<input id="${id}" name="${esc(f.name)}" value="${esc(value)}"${f.type === "number" ? " inputmode=\"numeric\"" : ""}${f.required ? " required" : ""}${f.placeholder ? ` placeholder="${esc(f.placeholder)}"` : ""} ${aria}>`;
  return `<div class="field"><label for="${id}">${esc(f.label)}</label>${control}<div class="hint" id="${id}-hint">${esc(f.hint)}</div>${err}</div>`;
}

/** The page that creates a directory, with the values typed so far and the problems found. */
export function newDirectoryPage(values: FormValues = {}, issues: string[] = []): string {
  const by = issuesByField(issues);
  const general = by.get("") ?? [];
  const defaults: FormValues = { target: "workforce", "platform.apiKeyEnv": "PLATFORM_API_KEY" };
  const v = (name: string) => values[name] ?? (Object.keys(values).length ? "" : defaults[name] ?? "");
  const more = by.get("more") ?? [];
  return page("scim-bridge — add a directory", `<p><a href="/admin/status">← status</a></p><h1>Add a directory</h1>
${issues.length ? `<div role="alert" class="notice error"><p>Not created: ${issues.length} problem(s)${general.length ? "" : ", shown next to their fields"}.</p>${general.length ? `<ul>${general.map((i) => `<li class="msg">${esc(i)}</li>`).join("")}</ul>` : ""}</div>` : ""}
<form method="post" action="/admin/directories" novalidate>${formTokenField()}
${FIELDS.map((f) => fieldHtml(f, v(f.name), by.get(f.name))).join("\n")}
<div class="field"><label for="f-more">Other settings (JSON, optional)</label><textarea id="f-more" name="more" rows="4" aria-describedby="f-more-hint"${more.length ? " aria-invalid=\"true\"" : ""}>${esc(values.more ?? "")}</textarea>
<div class="hint" id="f-more-hint">Any other key of a config file's directories[] entry, e.g. {"safety": {"maxDeprovisionPerResync": {"count": 50}}}; the fields above win.</div>${more.length ? `<div class="error" data-error-for="more">${more.map(esc).join("<br>")}</div>` : ""}</div>
<button type="submit">Create directory</button></form>`);
}
