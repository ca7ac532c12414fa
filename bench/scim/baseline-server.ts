/**
 * The baseline: a plain in-memory scimmy-routers server, the way STACK.md §4 sets one up. User and Group
 * are declared with ingress/egress/degress over `Map`s, egress applies `resource.filter.match(rows)`, and
 * the Express 5 `req.query` fix (STACK.md §4.1) goes in front of the router so paging works. Nothing more:
 * no uniqueness check, no index, no persistence. It is what the bench compares the bridge against.
 *
 * Env: PORT, BENCH_TOKEN. Run by bench/scim/run.ts as a child process (compiled with bench/scim/tsconfig.json).
 */
import { randomUUID } from "node:crypto";
import express from "express";
import SCIMMY from "scimmy";
import SCIMMYRouters from "scimmy-routers";

type Row = Record<string, unknown> & { id: string };

/** ingress/egress/degress handlers over one Map. */
function mapHandlers(rows: Map<string, Row>) {
  const notFound = (id: string) => new SCIMMY.Types.Error(404, null as unknown as string, `Resource ${id} not found`);
  return {
    ingress: (resource: { id?: string }, instance: object): Row => {
      const now = new Date().toISOString();
      const id = resource.id ?? randomUUID();
      const before = resource.id ? rows.get(id) : undefined;
      if (resource.id && !before) throw notFound(id);
      const created = (before?.meta as { created?: string } | undefined)?.created ?? now;
      const row: Row = { ...instance, id, meta: { created, lastModified: now } };
      rows.set(id, row);
      return row;
    },
    egress: (resource: { id?: string; filter?: { match(values: Row[]): Row[] } }): Row | Row[] => {
      if (resource.id) {
        const row = rows.get(resource.id);
        if (!row) throw notFound(resource.id);
        return row;
      }
      const all = [...rows.values()];
      return resource.filter ? resource.filter.match(all) : all;
    },
    degress: (resource: { id?: string }): void => {
      if (!resource.id || !rows.delete(resource.id)) throw notFound(String(resource.id));
    },
  };
}

const token = process.env.BENCH_TOKEN ?? "";
const users = mapHandlers(new Map());
const groups = mapHandlers(new Map());

// declared before the router is constructed: routes are registered at construction (STACK.md §6)
SCIMMY.Resources.declare(SCIMMY.Resources.User).ingress(users.ingress as never).egress(users.egress as never).degress(users.degress as never);
SCIMMY.Resources.declare(SCIMMY.Resources.Group).ingress(groups.ingress as never).egress(groups.egress as never).degress(groups.degress as never);

const app = express();
// Express 5's req.query is a re-parsing getter, so scimmy-routers' startIndex/count conversion is lost (STACK.md §4.1)
app.use((req, _res, next) => {
  Object.defineProperty(req, "query", { value: { ...req.query }, writable: true, configurable: true, enumerable: true });
  next();
});
app.use("/scim/v2", new SCIMMYRouters({
  type: "bearer",
  handler: (req) => {
    if (req.header("authorization") !== `Bearer ${token}`) throw new Error("Authorization failure");
    return "bench-client";
  },
  context: () => ({}),
}) as unknown as express.Router);

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1");
const stop = () => { server.close(() => process.exit(0)); server.closeAllConnections(); };
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
