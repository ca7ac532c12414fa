/**
 * Queries at the directory's root: `GET /` and `POST /.search` over Users and Groups together.
 * [RFC7644§3.4.2.1](https://datatracker.ietf.org/doc/html/rfc7644#section-3.4.2.1): "A query against a
 * server root indicates that all resources within the server SHALL be included, subject to filtering."
 * and "For filtered attributes that are not part of a particular resource type, the service provider
 * SHALL treat the attribute as if there is no attribute value." [RFC7644§3.4.3]: "Clients MAY execute
 * queries without passing parameters on the URL by using the HTTP POST verb combined with the
 * "/.search" path extension." Paging, sorting and projection are those of a resource endpoint; the order
 * is users, then groups, each in creation order.
 */
import { Router, type Response } from "express";
import type { GroupRecord, UserRecord } from "../../store";
import { scimContext } from "../context";
import { ScimError } from "../errors";
import { keepsAttribute, project } from "../query/attributes";
import type { ListSource } from "../query/list";
import { groupSource, userSource } from "./list-sources";
import { sendListPage } from "./list-page";
import { listParams, searchParams, type ListParams } from "./query-params";
import { userResource } from "./representation";
import { groupAnswer } from "./group-answer";

async function search(res: Response, p: ListParams): Promise<void> {
  const c = scimContext(res);
  const sources = [userSource(c), groupSource(c, keepsAttribute(p.projection, "members"), p.filter)] as Array<ListSource<{ id: string; created: string }>>;
  await sendListPage(res, c, "", sources, p, (x) => x.source === 0
    ? project(userResource(x.rec as UserRecord, c.base), p.projection)
    : groupAnswer(c.groups, c.directoryId, x.rec as GroupRecord, c.base, p.projection));
}

/** The root query endpoints (mounted under the directory router). */
export function rootSearchRouter(): Router {
  const r = Router({ mergeParams: true });
  r.get("/", async (req, res) => search(res, listParams(req.query as Record<string, unknown>, scimContext(res).settings)));
  r.post("/.search", async (req, res) => search(res, searchParams(req.body, scimContext(res).settings)));
  r.all(["/", "/.search"], (req) => {
    throw new ScimError(405, undefined, `Method ${req.method} is not supported on this endpoint`);
  });
  return r;
}
