/**
 * The process logger: pino JSON lines on stdout. Secrets never reach the output: the paths below are
 * replaced by "[redacted]" (Authorization headers, SCIM and admin tokens, admin form tokens, platform API keys, embed
 * session ids), whatever object they are logged under.
 */
import pino, { type Logger, type LoggerOptions, type DestinationStream } from "pino";

/** Paths pino censors in every log line. */
export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers[\"x-sim-token\"]",
  "req.headers[\"x-form-token\"]",
  "res.headers[\"set-cookie\"]",
  "headers.authorization",
  "authorization",
  "token",
  "*.token",
  "apiKey",
  "*.apiKey",
  "sessionId",
  "*.sessionId",
  "password",
  "*.password",
];

export type { Logger };

/** Creates the logger; `destination` lets tests capture output. */
export function createLogger(level: LoggerOptions["level"] = "info", destination?: DestinationStream, name = "scim-bridge"): Logger {
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
