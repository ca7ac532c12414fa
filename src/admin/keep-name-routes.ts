/**
 * The operator's answer to a same-name group conflict (src/sync/ownership/keep-name.ts), on the admin API
 * (mounted under /admin/directories, after the `:id` check):
 *   POST /:id/groups/:groupId/keep-name   this group keeps the platform name; the group that held it is
 *                                         displaced (200 `{name, group, displaced?}`; 404 unknown group)
 * A form POST (the group's page on the status page) is answered with a redirect back to that page, with the outcome (feedback.ts).
 */
import express, { type Router } from "express";
import type { Logger } from "pino";
import type { OpsContext } from "./ops-context";
import { NameClaims } from "../sync/ownership/name-claims";
import { keepPlatformName } from "../sync/ownership/keep-name";
import { itemHref } from "./item-page";
import { operator } from "./resync-routes";
import { answer } from "./feedback";

/** Keep-name routes; `knownId` answers 404 for a directory the bridge does not have. */
export function keepNameRoutes(c: OpsContext, knownId: express.RequestParamHandler, logger?: Logger): Router {
  const r = express.Router();
  r.param("id", knownId);
  const claims = new NameClaims(c.redis, c.config.redis.keyPrefix);
  r.post("/:id/groups/:groupId/keep-name", async (req, res) => {
    const { id, groupId } = req.params;
    const out = await keepPlatformName({ groups: c.groups, state: c.state, claims, enqueue: (kind, item) => c.queues.enqueue(id, kind, item) }, c.registry.get(id)!.dir, groupId);
    if (!out.ok) { answer(req, res, out.status, { error: out.error }, itemHref(id, "group", groupId), ""); return; }
    logger?.info({ directory: id, group: groupId, name: out.name, displaced: out.displaced, by: operator(req) }, "operator gave a platform group name to a group");
    answer(req, res, 200, { name: out.name, group: out.group, ...(out.displaced ? { displaced: out.displaced } : {}) }, itemHref(id, "group", groupId),
      `This group keeps the platform name "${out.name}"${out.displaced ? `; group ${out.displaced} gave it up and fails until it is renamed or deleted in the IdP` : ""}.`);
  });
  return r;
}
