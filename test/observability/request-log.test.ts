/**
 * The request log line (src/observability/request-log.ts): written at the level its outcome calls for,
 * not built at all below the level in force, always with the request id, never with a token.
 */
import { Writable } from "node:stream";
import express from "express";
import request from "supertest";
import { createLogger } from "../../src/observability/logger";
import { requestLog } from "../../src/observability/request-log";

function appWith(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({ write(chunk, _enc, cb) { for (const l of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(l)); cb(); } });
  const logger = createLogger(level as never, sink);
  const app = express();
  app.use(requestLog(logger));
  app.get("/ok", (_req, res) => { res.send("ok"); });
  app.get("/denied", (_req, res) => { res.status(401).send("no"); });
  app.get("/broken", (_req, res) => { res.status(500).send("x"); });
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
});
