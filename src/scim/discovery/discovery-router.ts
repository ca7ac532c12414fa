/**
 * The directory's endpoints besides /Users and /Groups, all answered here so no request reaches a
 * library default (scimmy-routers answered a root `POST /.search` with "Method 'egress' not implemented by
 * resource 'User'" and logged it as an unhandled error):
 * - /ServiceProviderConfig, /ResourceTypes[/:id], /Schemas[/:id] ([RFC7644§4]), GET only, never filtered (403);
 * - /Me: [RFC7644§3.11] "If the service provider does not support the /Me authentication alias… it
 *   SHOULD respond with HTTP status code 501 (Not Implemented)": a directory token stands for an IdP,
 *   not for a user;
 * - /Bulk: not supported (ServiceProviderConfig says so): 501;
 * - another method on these paths: 405.
 */
import { Router, type Response } from "express";
import { scimContext } from "../context";
import { ScimError } from "../errors";
import { sendList, sendResource } from "../resources/respond";
import { serviceProviderConfig } from "./service-provider-config";
import { resourceTypeById, resourceTypeList, schemaById, schemaList } from "./schema-documents";

function notAllowed(path: string): never {
  throw new ScimError(405, undefined, `This method is not supported on ${path}`);
}

function notImplemented(what: string): never {
  throw new ScimError(501, undefined, `${what} is not implemented by this service provider`);
}

const base = (res: Response) => scimContext(res).base;
const declared = (res: Response) => scimContext(res).extensions;

/** Router for the discovery endpoints, /Me and /Bulk (mounted under the directory router). */
export function discoveryRouter(): Router {
  const r = Router({ mergeParams: true });
  // [RFC7644§4] "If a "filter" is provided, the service provider SHOULD respond with HTTP status code 403
  // (Forbidden) to ensure that clients cannot incorrectly assume that any matching conditions specified in
  // a filter are true."
  r.get(["/ServiceProviderConfig", "/ResourceTypes", "/ResourceTypes/:id", "/Schemas", "/Schemas/:id"], (req, _res, next) => {
    if (req.query.filter !== undefined) throw new ScimError(403, undefined, "Discovery endpoints take no filter: read them in full");
    next();
  });
  r.get("/ServiceProviderConfig", (_req, res) => sendResource(res, 200, serviceProviderConfig(scimContext(res).settings, base(res))));
  r.get("/ResourceTypes", async (_req, res) => { const all = await resourceTypeList(base(res), declared(res)); sendList(res, all.length, 1, all); });
  r.get("/ResourceTypes/:id", async (req, res) => sendResource(res, 200, await resourceTypeById(req.params.id, base(res), declared(res))));
  r.get("/Schemas", async (_req, res) => { const all = await schemaList(base(res), declared(res)); sendList(res, all.length, 1, all); });
  r.get("/Schemas/:id", async (req, res) => sendResource(res, 200, await schemaById(req.params.id, base(res), declared(res))));
  for (const path of ["/ServiceProviderConfig", "/ResourceTypes", "/ResourceTypes/:id", "/Schemas", "/Schemas/:id"]) {
    r.all(path, () => notAllowed(path.replace("/:id", "/{id}")));
  }
  r.all(["/Me", "/Me/{*rest}"], () => notImplemented("The /Me alias"));
  r.all("/Bulk", () => notImplemented("/Bulk"));
  return r;
}
