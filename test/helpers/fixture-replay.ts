/**
 * Replays one recorded IdP exchange (a fixture file) against a running SCIM app over HTTP.
 *
 * A fixture is `{row, description, todo?, directory?, setup?, method, path, headers?, request?, statusCode,
 * response?, responseHeaders?, capture?, then?}`: the exchange itself in elimity-com/scim's shape, with
 * the steps that prepare it (`setup`) and the requests that prove its effect (`then`). Every step has the
 * exchange's fields, plus `repeat` (send it n times; `{{n}}` is 1…n). A setup or `then` step without
 * `statusCode` must answer 2xx; the exchange itself must name its `statusCode`.
 * - `path` is relative to `/scim/v2/acme`; spaces, quotes and `+` in it are percent-encoded, an
 *   already-encoded query (Okta O1) goes out as written.
 * - `headers` replace the defaults (`Authorization: Bearer <acme token>`, and `Content-Type:
 *   application/scim+json` when there is a body).
 * - `{{name}}` in paths, headers, bodies and expectations is replaced by a captured value; `{{token}}` is
 *   the acme directory's token. `capture` maps a name to a dotted path in the response body
 *   (`id`, `Resources.0.id`) or to `headers.<name>` (`headers.etag`); a name ending in `[]` collects a list.
 * - `{"$each": "<list>", "as": <template>}` in a request body becomes an array: the template once per
 *   collected value, with `{{item}}` standing for it (O12's 256 members).
 * - `response` and `responseHeaders` (lower-case names) are matched with fixture-match.ts.
 */
import request from "supertest";
import type { Express } from "express";
import { mismatches } from "./fixture-match";

type Json = Record<string, unknown>;

/** One HTTP exchange of a fixture. */
export interface FixtureStep {
  method: string;
  path: string;
  headers?: Record<string, string>;
  request?: unknown;
  statusCode?: number;
  response?: unknown;
  responseHeaders?: Record<string, unknown>;
  capture?: Record<string, string>;
  repeat?: number;
}

/** A fixture file: the exchange, what it needs first, and what proves its effect. */
export interface Fixture extends FixtureStep {
  row: string;
  description: string;
  /** Settings of the acme directory for this fixture (config form: `{"strict": true}`, `{"extensions": [...]}`). */
  directory?: Record<string, unknown>;
  /** Set when the fixture asserts behaviour the server does not have yet; the replay lists it as a todo. */
  todo?: string;
  setup?: FixtureStep[];
  then?: FixtureStep[];
}

/** Values captured so far (strings) and lists collected with `name[]`. */
type Vars = Map<string, string | string[]>;

const BASE = "/scim/v2/acme";

function fill(text: string, vars: Vars): string {
  return text.replace(/\{\{\s*([\w$]+)\s*\}\}/g, (whole, name: string) => {
    const v = vars.get(name);
    if (v === undefined) throw new Error(`placeholder ${whole} has no captured value`);
    return Array.isArray(v) ? v.join(",") : v;
  });
}

/** Replaces placeholders and expands `$each` everywhere in a JSON value. */
export function template(value: unknown, vars: Vars): unknown {
  if (typeof value === "string") return fill(value, vars);
  if (Array.isArray(value)) return value.map((v) => template(v, vars));
  if (value && typeof value === "object") {
    const o = value as Json;
    if (typeof o.$each === "string" && "as" in o) {
      const list = vars.get(o.$each);
      if (!Array.isArray(list)) throw new Error(`$each: "${o.$each}" is not a collected list`);
      return list.map((item) => template(o.as, new Map([...vars, ["item", item]])));
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, template(v, vars)]));
  }
  return value;
}

/** Percent-encodes what may not appear raw in a request target; leaves existing %XX escapes alone. */
export function encodePath(path: string): string {
  return path.replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*,;=%]|\+/g, (c) => encodeURIComponent(c)).replace(/#/g, "%23");
}

function at(body: unknown, dotted: string): unknown {
  return dotted.split(".").reduce<unknown>((cur, key) => (cur && typeof cur === "object" ? (cur as Json)[key] : undefined), body);
}

function describeStep(label: string, step: FixtureStep): string {
  return `${label}: ${step.method} ${step.path}`;
}

async function send(app: Express, step: FixtureStep, vars: Vars, auth: string): Promise<request.Response> {
  const method = step.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
  let req = request(app)[method](BASE + encodePath(fill(step.path, vars)));
  const headers: Record<string, string> = { Authorization: auth };
  if (step.request !== undefined) headers["Content-Type"] = "application/scim+json";
  for (const [k, v] of Object.entries(step.headers ?? {})) {
    for (const d of Object.keys(headers)) if (d.toLowerCase() === k.toLowerCase()) delete headers[d];
    headers[k] = fill(v, vars);
  }
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  if (step.request !== undefined) req = req.send(JSON.stringify(template(step.request, vars)));
  return req;
}

async function runStep(app: Express, label: string, step: FixtureStep, vars: Vars, token: string, mustSucceed: boolean): Promise<void> {
  const times = step.repeat ?? 1;
  for (let n = 1; n <= times; n++) {
    const local: Vars = step.repeat ? new Map([...vars, ["n", String(n)]]) : vars;
    const res = await send(app, step, local, `Bearer ${token}`);
    const body: unknown = res.text ? (() => { try { return JSON.parse(res.text); } catch { return res.text; } })() : undefined;
    const problems: string[] = [];
    if (step.statusCode !== undefined && res.status !== step.statusCode) problems.push(`status: expected ${step.statusCode}, got ${res.status}`);
    if (step.statusCode === undefined && mustSucceed && (res.status < 200 || res.status > 299)) problems.push(`status: expected 2xx, got ${res.status}`);
    if (step.response !== undefined) problems.push(...mismatches(template(step.response, local), body, "response"));
    for (const [name, want] of Object.entries(step.responseHeaders ?? {})) {
      problems.push(...mismatches(template(want, local), res.headers[name.toLowerCase()], `headers.${name.toLowerCase()}`));
    }
    if (problems.length) {
      const shown = body === undefined ? "(no body)" : JSON.stringify(body, null, 2);
      throw new Error(`${describeStep(label, step)}${times > 1 ? ` (#${n})` : ""}\n  ${problems.join("\n  ")}\nactual body:\n${shown.length > 4000 ? `${shown.slice(0, 4000)}\n…` : shown}`);
    }
    for (const [name, from] of Object.entries(step.capture ?? {})) {
      const raw = from.startsWith("headers.") ? res.headers[from.slice(8).toLowerCase()] : at(body, from);
      if (raw === undefined) throw new Error(`${describeStep(label, step)}: capture "${name}" found nothing at "${from}"`);
      const value = String(raw);
      if (name.endsWith("[]")) {
        const list = vars.get(name.slice(0, -2));
        vars.set(name.slice(0, -2), [...(Array.isArray(list) ? list : []), value]);
      } else {
        vars.set(name, value);
      }
    }
  }
}

/** Runs a fixture's setup, exchange and follow-up steps in order; throws a readable diff at the first difference. */
export async function replayFixture(app: Express, fx: Fixture, token: string): Promise<void> {
  const vars: Vars = new Map([["token", token]]);
  for (const [i, step] of (fx.setup ?? []).entries()) await runStep(app, `setup[${i}]`, step, vars, token, true);
  if (fx.statusCode === undefined) throw new Error(`fixture ${fx.row} has no statusCode`);
  await runStep(app, `${fx.row} exchange`, fx, vars, token, false);
  for (const [i, step] of (fx.then ?? []).entries()) await runStep(app, `then[${i}]`, step, vars, token, true);
}
