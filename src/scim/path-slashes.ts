/**
 * Empty path segments collapsed before routing: an IdP administrator who enters the base URL with a
 * trailing slash (`https://bridge/scim/v2/acme/`) makes every request `…/acme//Users`, which no route
 * matches. `//` in the path (never in the query, never an encoded `%2F`) becomes `/`.
 */
import type { RequestHandler } from "express";

export const collapseSlashes: RequestHandler = (req, _res, next) => {
  const q = req.url.indexOf("?");
  const path = q < 0 ? req.url : req.url.slice(0, q);
  if (path.includes("//")) req.url = path.replace(/\/{2,}/g, "/") + (q < 0 ? "" : req.url.slice(q));
  next();
};
