/** createExpressServer (src/roles/express-server.ts): requests and responses are born as the app's own. */
import type { AddressInfo } from "node:net";
import http from "node:http";
import express from "express";
import { createExpressServer } from "../../src/roles/express-server";

async function serve(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("createExpressServer", () => {
  it("should make each request and response with the app's prototypes before Express sees them, and serve the app as usual", async () => {
    const app = express();
    app.post("/echo/:id", express.json(), (req, res) => { res.status(201).json({ id: req.params.id, q: req.query.q, body: req.body as unknown }); });
    const server = createExpressServer(app, { keepAliveTimeout: 1000 });
    const born: boolean[] = [];
    // runs before the app (the listener createServer added): what Node made, untouched by Express
    server.prependListener("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      born.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
    });
    const url = await serve(server);
    try {
      const res = await fetch(`${url}/echo/a1?q=x`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ n: 1 }) });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ id: "a1", q: "x", body: { n: 1 } });
      expect((await fetch(`${url}/nothing`)).status).toBe(404);
      expect(born).toEqual([true, true]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
