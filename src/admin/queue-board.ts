/**
 * Bull Board, mounted at /admin/queues: every shard queue of the sync (`sync.queueShards`) by its own name.
 * The shards share the BullMQ queue name `sync` under different key prefixes, and Bull Board keys its
 * queues by name, so each is registered with a prefix of its own in the board ("shard-<n>/") and a display
 * name that says which shard it is; without that the board showed one of them.
 * Nothing is fetched from outside: the board's page links IBM Plex fonts from Google; that link is
 * removed from the page it sends (boardPageFilter), and its stylesheet falls back to the system's sans-serif and monospace.
 */
import type express from "express";
import type { RequestHandler } from "express";
import type { Logger } from "pino";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { SyncQueues } from "../sync/admission/queues";

const BASE_PATH = "/admin/queues";

/** The board's page without anything it would load from another origin (its font stylesheet). */
export function withoutExternalLinks(html: string): string {
  return html.replace(/<link[^>]+href="https?:\/\/[^"]*"[^>]*>/gi, "").replace(/<link[^>]+href="\/\/[^"]*"[^>]*>/gi, "");
}

/** The board's own express app (mount at /admin/queues behind the sign-in). */
export function queueBoard(queues: SyncQueues, logger?: Logger): express.Express {
  const board = new ExpressAdapter();
  board.setBasePath(BASE_PATH);
  createBullBoard({
    queues: Array.from({ length: queues.shards }, (_, n) => new BullMQAdapter(queues.shard(n), {
      prefix: `shard-${n}/`, displayName: `sync shard ${n} of ${queues.shards}`, description: `directories whose id hashes to shard ${n}`,
    })),
    serverAdapter: board,
  });
  // bull-board's own handler puts the error's message in the body (a Redis error's text, say) and, under
  // NODE_ENV=development, its stack: keep the status and the key its UI translates, log the rest
  board.setErrorHandler((err) => {
    const status = (err as { statusCode?: number }).statusCode;
    if (!status || status >= 500) logger?.error({ err }, "bull-board request failed");
    return { status: status && status < 500 ? (status as 400) : 500, body: { error: { key: "ERRORS.INTERNAL_SERVER_ERROR" } } };
  });
  const app = board.getRouter() as express.Express;
  app.disable("x-powered-by"); // bull-board is its own express app; the rest of the server says nothing of its stack
  return app;
}

/** Middleware before the board: its HTML page goes out without the external font link. */
export function boardPageFilter(): RequestHandler {
  return (_req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => send(typeof body === "string" && body.includes("<html") ? withoutExternalLinks(body) : body);
    next();
  };
}
