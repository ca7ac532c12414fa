/**
 * The floor of bench/scim §4: a group member PATCH with our store and nothing else. A bare node:http server
 * (no express, authentication, PatchOp validation, activity trail, metrics or request log) reads the body,
 * takes the member values of its one operation and makes the GroupStore.write call our route makes, on a
 * store connection made as the server makes it. The distance from ours to the floor is what the server's
 * layers cost; the floor's own latency is what this machine allows the store alone (Redis and one Node
 * process sharing the cores with the load generator), so a latency goal below it needs a cheaper store.
 *
 * Env: PORT, REDIS_URL, KEY_PREFIX. Loads the built store (dist/, which run.ts builds first). Run by
 * bench/scim/run.ts as a child process (compiled with bench/scim/tsconfig.json). Answers GET /healthz and
 * PATCH /scim/v2/<directory>/Groups/<id>; anything it cannot do is a 500, which the bench counts as an error.
 */
import http from "node:http";
import path from "node:path";

/** The parts of dist/store the floor uses (dist is outside this compilation's rootDir: required at run time). */
interface Store {
  createStoreConnection(url: string): unknown;
  GroupStore: new (redis: unknown, keyPrefix: string) => {
    write(directoryId: string, id: string, w: { mode: "update"; memberOps: unknown }): Promise<unknown>;
  };
  encodeMemberOps(ops: Array<{ op: string; members: Array<{ value: string }> }>): unknown;
}

const DIST = path.resolve(__dirname, "../../../dist");
/* eslint-disable @typescript-eslint/no-require-imports */
const store = { ...require(path.join(DIST, "store/connection")), ...require(path.join(DIST, "store")) } as Store;
// the store's defaults are the server's (scim.maxGroupMembers, redis.writeSettleMs, large groups)
const groups = new store.GroupStore(store.createStoreConnection(process.env.REDIS_URL ?? "redis://127.0.0.1:6379"), process.env.KEY_PREFIX ?? "");
const ROUTE = /^\/scim\/v2\/([^/]+)\/Groups\/([^/?]+)/;

const server = http.createServer((req, res) => {
  if (req.url === "/healthz") { res.end("ok"); return; }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    (async () => {
      const m = ROUTE.exec(req.url ?? "");
      if (req.method !== "PATCH" || !m) throw new Error(`not served: ${req.method} ${req.url}`);
      const op = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { Operations: Array<{ op: string; value: Array<{ value: string }> }> }).Operations[0];
      const memberOps = store.encodeMemberOps([{ op: op.op, members: op.value.map((v) => ({ value: v.value })) }]);
      await groups.write(m[1], m[2], { mode: "update", memberOps });
      res.statusCode = 204;
      res.end();
    })().catch((err: Error) => { res.statusCode = 500; res.end(err.message); });
  });
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1");
const stop = () => { server.close(() => process.exit(0)); server.closeAllConnections(); };
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
