/**
 * The request log line (src/observability/request-log.ts): written at the level its outcome calls for,
 * not built at all below the level in force, always with the request id, never with a token.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import request from "supertest";
import { createLogger } from "../../src/observability/logger";
import { requestLog } from "../../src/observability/request-log";
import { waitFor } from "../helpers/wait-for";

function appWith(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write(chunk, _enc, cb) { for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l)); cb(); } });
  const logger = createLogger(level as never, sink);
  const app = express();
  app.use(requestLog(logger));
  app.get("/ok", (_req, res) => { res.send("ok"); });
  app.get("/denied", (_req, res) => { res.status(401).send("no"); });
  app.get("/broken", (_req, res) => { res.status(500).send("x"); });
  // answers only once the client has gone, as a handler whose body read failed on the abort does
  app.post("/slow", (req, res) => { req.on("close", () => { res.status(400).send("too late"); }); });
  return { app, lines, logger };
}

describe("requestLog", () => {
  it("should build no line below the level in force, and still set X-Request-Id", async () => {
    const { app, lines, logger } = appWith("warn");
    const info = jest.spyOn(logger, "info");
    const debug = jest.spyOn(logger, "debug");
    const ok = await request(app).get("/ok").set("Authorization", "Bearer secret-token-1");
    await request(app).get("/denied").set("Authorization", "Bearer secret-token-1");
    expect(ok.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(info).not.toHaveBeenCalled();
    expect(debug).not.toHaveBeenCalled();
    await request(app).get("/broken");
    expect(lines.map((l) => [l.level, l.msg, (l.res as { statusCode: number }).statusCode])).toEqual([[50, "request completed", 500]]);
  });

  it("should log 4xx at info and 2xx at debug with the client's request id and the Authorization header redacted", async () => {
    const { app, lines } = appWith("debug");
    await request(app).get("/ok").set("X-Request-Id", "abc-123").set("Authorization", "Bearer secret-token-2");
    await request(app).get("/denied").set("Authorization", "Bearer secret-token-2");
    expect(lines.map((l) => l.level)).toEqual([20, 30]);
    expect((lines[0].req as { id: string }).id).toBe("abc-123");
    expect((lines[1].req as { headers: Record<string, string> }).headers.authorization).toBe("[redacted]");
    expect(JSON.stringify(lines)).not.toContain("secret-token-2");
  });

  it("should log a request the client abandoned once, at info, with the request id and no headers", async () => {
    const { app, lines } = appWith("info");
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const { port } = server.address() as AddressInfo;
    try {
      // the client sends its headers and half a body, then gives up
      const req = http.request({ port, host: "127.0.0.1", method: "POST", path: "/slow?x=1", headers: {
        "X-Request-Id": "gone-1", Authorization: "Bearer secret-token-3", "Content-Type": "application/json", "Content-Length": "100" } });
      req.on("error", () => undefined);
      const arrived = new Promise((r) => server.once("request", r));
      req.write("{\"userName\":");
      await arrived;
      await waitForLine(lines, (l) => l.msg === "request abandoned by the client", () => req.destroy());
      // a later request's line comes after anything the abandoned one could still write
      await request(server).get("/denied");
      await waitForLine(lines, (l) => (l.req as { url: string }).url === "/denied");
    } finally {
      server.close();
    }
    const gone = lines.filter((l) => (l.req as { id: string }).id === "gone-1");
    expect(gone).toHaveLength(1);
    expect(gone[0]).toMatchObject({ level: 30, msg: "request abandoned by the client", req: { id: "gone-1", method: "POST", url: "/slow?x=1" } });
    expect(typeof gone[0].responseTime).toBe("number");
    expect(gone[0]).not.toHaveProperty("res");
    expect((gone[0].req as Record<string, unknown>).headers).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain("secret-token-3");
  });
});

/** Runs `act` (if any), then waits until a line matches (each written line is an event of the sink). */
async function waitForLine(lines: Array<Record<string, unknown>>, match: (l: Record<string, unknown>) => boolean, act?: () => void): Promise<void> {
  act?.();
  await waitFor(() => lines.some(match), 5000, "a matching log line");
}
