/**
 * Test-only endpoints under `/_sim`, behind their own header token (`admin.header`, `admin.token`):
 * `GET /_sim/state`, `GET /_sim/counts`, `POST /_sim/reset`, `POST /_sim/counters/reset`, `GET /_sim/faults`, `PUT /_sim/faults`.
 * Drift is injected through the normal API (SCIM PUT/PATCH/DELETE, embed deletes, generate-session).
 */
import express, { Router } from "express";
import { ZodError } from "zod";
import type { SimConfig } from "../config";
import type { FaultInjector } from "../faults";
import { SimError } from "../sim-error";
import type { SimState } from "../state";

/** Router mounted at `/_sim`. */
export function simAdminRouter(state: SimState, faults: FaultInjector, config: SimConfig): Router {
  const r = Router();
  r.use((req, _res, next) => {
    next(req.get(config.admin.header) === config.admin.token ? undefined : new SimError(401, `missing or wrong ${config.admin.header} header`));
  });
  r.use(express.json());
  r.get("/state", (_req, res) => void res.json(state.snapshot()));
  r.get("/counts", (_req, res) => void res.json(state.counts()));
  r.post("/reset", (_req, res) => {
    state.reset();
    faults.set(config.faults);
    res.status(204).end();
  });
  r.post("/counters/reset", (_req, res) => {
    state.counters.reset();
    res.status(204).end();
  });
  r.get("/faults", (_req, res) => void res.json(faults.get()));
  r.put("/faults", (req, res) => {
    try {
      res.json(faults.set(req.body ?? {}));
    } catch (err) {
      if (err instanceof ZodError) throw new SimError(400, `invalid faults: ${err.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
      throw err;
    }
  });
  return r;
}
