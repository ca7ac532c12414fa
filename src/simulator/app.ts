/**
 * Builds the simulator's Express app. The platform `{base_url}` is `<origin>/api`: REST at `/api/v1`
 * (`Bearer`), embed session and embed-tenant admin (`Api-Key`), SCIM at `/api/scim/v2` (`Bearer` or
 * `Api-Key`). Test endpoints live at `/_sim`. Fault injection applies to `/api` only.
 */
import express, { type Express, type RequestHandler } from "express";
import { authenticate, requireAccountAccess } from "./auth";
import type { SimConfig } from "./config";
import { errorHandler, notFound } from "./error-handler";
import { FaultInjector } from "./faults";
import { deploymentsRouter } from "./routes/deployments";
import { embedTenantsRouter } from "./routes/embed-tenants";
import { generateSessionRouter } from "./routes/generate-session";
import { scimGroupsRouter } from "./routes/scim-groups";
import { scimUsersRouter } from "./routes/scim-users";
import { simAdminRouter } from "./routes/sim-admin";
import { SimState } from "./state";

/** The app with its state and fault injector. */
export interface SimulatorApp {
  app: Express;
  state: SimState;
  faults: FaultInjector;
}

/** Echoes `x-request-id` so client logs and simulator answers can be matched. */
const echoRequestId: RequestHandler = (req, res, next) => {
  const id = req.get("x-request-id");
  if (id) res.setHeader("x-request-id", id);
  next();
};

/** Creates the simulator app from a parsed config. */
export function createSimulatorApp(config: SimConfig): SimulatorApp {
  const state = new SimState(config);
  const faults = new FaultInjector(config.faults, state.counters);
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("query parser", "simple");

  app.use("/_sim", simAdminRouter(state, faults, config));
  const api = express.Router();
  api.use(echoRequestId, faults.middleware(), express.json({ type: ["application/json", "application/scim+json"], limit: "5mb" }));
  // "REST API (`/api/v1/...`): header `Authorization: Bearer <ACCESS_TOKEN>`"
  const bearer = authenticate(config, ["Bearer"]);
  // "Embed session endpoint and embed-tenant admin endpoints: header `Authorization: Api-Key <API_KEY>`"
  const apiKey = authenticate(config, ["Api-Key"]);
  // "SCIM API (`/api/scim/v2/...`): `Authorization: Bearer <SCIM_TOKEN>`; … `Api-Key <SCIM_TOKEN>` is also accepted"
  const scim = authenticate(config, ["Bearer", "Api-Key"]);
  const account = requireAccountAccess(config);

  api.use("/v1/embed/generate-session", apiKey, generateSessionRouter(state, config));
  api.use("/v1/embed-tenants", apiKey, requireAccountAccess(config, true), embedTenantsRouter(state, config));
  api.use("/v1/deployments", bearer, deploymentsRouter(state, config));
  api.use("/v1", bearer);
  api.use("/scim/v2", scim, account);
  api.use("/scim/v2/Users", scimUsersRouter(state));
  api.use("/scim/v2/Groups", scimGroupsRouter(state));
  app.use("/api", api);
  app.use(notFound);
  app.use(errorHandler);
  return { app, state, faults };
}
