/**
 * REST deployment paths: `GET /api/v1/deployments` lists the deployments the key covers (all of them for
 * an unscoped key; the response shape is "not shown": a JSON array of `{id, name}`), and any other
 * `/api/v1/deployments/{deploymentId}/...` path checks the key's scope (403 outside it) before answering
 * 404, since the simulator implements no deployment content.
 */
import { Router } from "express";
import type { SimConfig } from "../config";
import { authKey, requireDeployment } from "../auth";
import { SimError } from "../sim-error";
import type { SimState } from "../state";

/** Router mounted at `/v1/deployments`. */
export function deploymentsRouter(state: SimState, config: SimConfig): Router {
  const r = Router();
  r.get("/", (req, res) => {
    state.counters.hit("GET", "/v1/deployments");
    const key = authKey(res);
    res.json(config.deployments.filter((d) => key.deployments === "all" || key.deployments.includes(d.id)));
  });
  r.all("/:deploymentId{/*rest}", (req, res) => {
    state.counters.hit(req.method, "/v1/deployments/:deploymentId/*");
    const id = Number(req.params.deploymentId);
    if (!Number.isInteger(id)) throw new SimError(400, "deploymentId must be an integer");
    // "a request for another deployment returns 403"
    requireDeployment(authKey(res), id);
    throw new SimError(404, `${req.method} ${req.originalUrl.split("?")[0]} is not implemented by the simulator`);
  });
  return r;
}
