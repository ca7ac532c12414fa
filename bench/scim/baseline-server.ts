/**
 * The baseline: the plain library set-up of DESIGN.md §6 and STACK.md §4 — SCIMMY + scimmy-routers on
 * express 4, User and Group declared with ingress/egress/degress over in-memory arrays, egress applying
 * `resource.filter.match(rows)`. Nothing more: no uniqueness check, no index, no persistence. It is what
 * the bench compares the bridge against.
 *
 * express 4 is the `express4` dev dependency (npm alias). scimmy-routers requires "express" itself, which in
 * this repository is express 5, so that one name is pointed at express 4 for this process before
 * scimmy-routers loads; express 4 keeps `req.query` a plain property, so no query fix is needed (the fix of
 * STACK.md §4.1 is for express 5).
 *
 * Env: PORT, BENCH_TOKEN. Run by bench/scim/run.ts as a child process (compiled with bench/scim/tsconfig.json).
 */
import Module from "node:module";
import { randomUUID } from "node:crypto";

type Resolve = (request: string, parent: unknown, ...rest: unknown[]) => string;
const moduleWithResolve = Module as unknown as { _resolveFilename: Resolve };
const resolve = moduleWithResolve._resolveFilename;
const express4Path = require.resolve("express4");
moduleWithResolve._resolveFilename = function (this: unknown, request, parent, ...rest) {
  return request === "express" ? express4Path : resolve.call(this, request, parent, ...rest);
};

/* eslint-disable @typescript-eslint/no-require-imports */
const express = require("express4") as typeof import("express");
const SCIMMY = (require("scimmy") as { default: typeof import("scimmy").default }).default;
const SCIMMYRouters = (require("scimmy-routers") as { default: typeof import("scimmy-routers").default }).default;

type Row = Record<string, unknown> & { id: string };

/** ingress/egress/degress handlers over one array. */
function arrayHandlers(rows: Row[]) {
  const notFound = (id: string) => new SCIMMY.Types.Error(404, null as unknown as string, `Resource ${id} not found`);
  const indexOf = (id: string) => rows.findIndex((r) => r.id === id);
  return {
    ingress: (resource: { id?: string }, instance: object): Row => {
      const now = new Date().toISOString();
      if (resource.id) {
        const at = indexOf(resource.id);
        if (at < 0) throw notFound(resource.id);
        const created = (rows[at].meta as { created?: string } | undefined)?.created ?? now;
        rows[at] = { ...instance, id: resource.id, meta: { created, lastModified: now } };
        return rows[at];
      }
      const row: Row = { ...instance, id: randomUUID(), meta: { created: now, lastModified: now } };
      rows.push(row);
      return row;
    },
    egress: (resource: { id?: string; filter?: { match(values: Row[]): Row[] } }): Row | Row[] => {
      if (resource.id) {
        const at = indexOf(resource.id);
        if (at < 0) throw notFound(resource.id);
        return rows[at];
      }
      return resource.filter ? resource.filter.match(rows) : rows;
    },
    degress: (resource: { id?: string }): void => {
      const at = resource.id ? indexOf(resource.id) : -1;
      if (at < 0) throw notFound(String(resource.id));
      rows.splice(at, 1);
    },
  };
}

const token = process.env.BENCH_TOKEN ?? "";
const users = arrayHandlers([]);
const groups = arrayHandlers([]);

// declared before the router is constructed: routes are registered at construction (STACK.md §6)
SCIMMY.Resources.declare(SCIMMY.Resources.User).ingress(users.ingress as never).egress(users.egress as never).degress(users.degress as never);
SCIMMY.Resources.declare(SCIMMY.Resources.Group).ingress(groups.ingress as never).egress(groups.egress as never).degress(groups.degress as never);

const app = express();
app.use("/scim/v2", new SCIMMYRouters({
  type: "bearer",
  handler: (req) => {
    if (req.header("authorization") !== `Bearer ${token}`) throw new Error("Authorization failure");
    return "bench-client";
  },
  context: () => ({}),
}) as unknown as import("express").Router);

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1");
const stop = () => { server.close(() => process.exit(0)); server.closeAllConnections(); };
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
