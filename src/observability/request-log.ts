/**
 * One log line per HTTP request, at a level chosen by the outcome (5xx and errors: error, 4xx: info,
 * the rest: debug), and nothing at all below the level in force. pino-http built a child logger and
 * serialised (and redacted) every request even when the level dropped the line: ~12% of the CPU of a
 * filter request at level warn. Here the line is built only when it will be written; the request id is
 * set either way (`X-Request-Id`, from the client's header when it is a sane token, else a UUID).
 * Redaction is the logger's (observability/logger.ts): the line carries the headers under `req.headers`
 * and `res.headers`, which its paths censor.
 * A request the client abandoned (the connection closed before the answer was sent) is not a fault of the
 * bridge: it is one line at info with the request id, method, URL and time taken, without headers, and only
 * that one even when the handler writes its answer to the closed connection afterwards.
 */
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import type { Logger } from "pino";

type Level = "error" | "info" | "debug";

function levelOf(status: number): Level {
  return status >= 500 ? "error" : status >= 400 ? "info" : "debug";
}

/** Middleware: request id, and the request's log line once it finished (or was aborted). */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const raw = req.headers["x-request-id"];
    const id = (typeof raw === "string" ? raw.slice(0, 64).replace(/[^\w.-]/g, "") : "") || randomUUID();
    res.setHeader("X-Request-Id", id);
    const started = performance.now();
    let logged = false;
    const done = () => {
      if (logged) return;
      logged = true;
      const level = levelOf(res.statusCode);
      if (!logger.isLevelEnabled(level)) return;
      logger[level]({
        req: { id, method: req.method, url: req.originalUrl, headers: req.headers, remoteAddress: req.socket.remoteAddress },
        res: { statusCode: res.statusCode, headers: res.getHeaders() },
        responseTime: Math.round(performance.now() - started),
      }, "request completed");
    };
    const abandoned = () => {
      if (logged) return;
      logged = true;
      if (!logger.isLevelEnabled("info")) return;
      logger.info({ req: { id, method: req.method, url: req.originalUrl }, responseTime: Math.round(performance.now() - started) },
        "request abandoned by the client");
    };
    res.once("finish", done);
    res.once("close", () => { if (!res.writableFinished) abandoned(); });
    next();
  };
}
