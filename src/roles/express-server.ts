/**
 * An http.Server whose requests and responses are born as the Express app's own.
 *
 * Express 5 turns each request and response of a plain server into its app's on arrival
 * (`app.handle`: `Object.setPrototypeOf(req, this.request)`, the same for `res`). V8 then moves every
 * one of them to another hidden class in mid-life, so the code that reads them (Node's http internals,
 * Express, our routes) meets two shapes of each. Node's server can make them with the right prototype
 * from the start (its `IncomingMessage` and `ServerResponse` options); Express's switch is then a switch
 * to the prototype they already have, which changes nothing, and the server spends less CPU per request
 * (bench/scim measures it; the SCIM router is mounted without an app of its own for the same reason,
 * src/scim/app.ts).
 */
import http from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

/** `http.createServer(options, app)`, with requests and responses made as `app.request` / `app.response`. */
export function createExpressServer(app: Express, options: http.ServerOptions = {}): http.Server {
  // Node's classes are constructor functions: a function whose prototype is the app's object makes
  // instances of exactly that prototype (a class extending them could not: its prototype is its own)
  function Request(this: http.IncomingMessage, socket: Socket): void {
    (http.IncomingMessage as unknown as (this: http.IncomingMessage, s: Socket) => void).call(this, socket);
  }
  Request.prototype = app.request;
  function Response(this: http.ServerResponse, req: http.IncomingMessage, opts?: unknown): void {
    (http.ServerResponse as unknown as (this: http.ServerResponse, r: http.IncomingMessage, o?: unknown) => void).call(this, req, opts);
  }
  Response.prototype = app.response;
  return http.createServer({
    ...options,
    IncomingMessage: Request as unknown as typeof http.IncomingMessage,
    ServerResponse: Response as unknown as typeof http.ServerResponse,
  }, app);
}
