/**
 * `POST /api/v1/embed/generate-session`: mints a session after every rule of the contract section, in this
 * order: plan, `Content-Type`, `deploymentId` and its scope (403), request shape, internal user, creator-mode
 * flag, definitions (type check, then upsert), attributes and groups, external-user limit, write.
 */
import { randomBytes } from "node:crypto";
import { Router } from "express";
import type { SimConfig } from "../config";
import { authKey, requireDeployment } from "../auth";
import { SimError } from "../sim-error";
import type { SimState } from "../state";
import { checkRequest } from "../session/check-request";
import { upsertDefinitions } from "../session/definitions";
import { resolveAttributes, resolveGroups } from "../session/resolve";
import { applyExternalUser } from "../session/apply-user";
import { MSG } from "../session/session-request";

/** Router with the session endpoint. */
export function generateSessionRouter(state: SimState, config: SimConfig): Router {
  const r = Router();
  const codes = config.statusCodes;
  r.post("/", (req, res) => {
    state.counters.hit("POST", "/v1/embed/generate-session");
    // "Plan availability: premium and enterprise plans."
    if (config.tenant.plan !== "premium" && config.tenant.plan !== "enterprise") throw new SimError(codes.planNotAvailable, MSG.plan);
    // "Headers: `Content-Type: application/json` (required)"
    if (!req.is("application/json")) throw new SimError(codes.validation, "Content-Type: application/json is required");
    const body = req.body as Record<string, unknown>;
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new SimError(codes.validation, "body must be a JSON object");
    if (typeof body.deploymentId !== "number" || !Number.isInteger(body.deploymentId)) throw new SimError(codes.validation, "deploymentId is required and must be a number");
    // "must lie within the key's deployment scope, otherwise 403"
    requireDeployment(authKey(res), body.deploymentId);
    if (!config.deployments.some((d) => d.id === body.deploymentId)) throw new SimError(codes.deploymentNotFound, `deployment ${body.deploymentId} not found`);

    const request = checkRequest(body, config);
    // "username of an existing internal user; the user must already exist"
    if (request.internalId !== undefined && !state.internalUserExists(request.internalId)) {
      throw new SimError(codes.internalUserNotFound, MSG.internalUserNotFound(request.internalId));
    }
    // "requires the `useCreatorMode` tenant flag"
    if (request.creatorMode && !config.tenant.useCreatorMode) throw new SimError(codes.creatorModeNotEnabled, MSG.creatorModeFlag);

    const tenantName = request.embedTenantName ?? config.tenant.name;
    const existingTenant = state.tenants.get(tenantName);
    const tenant = existingTenant ?? state.tenant(tenantName);
    try {
      // "upserted idempotently into the embed-tenant scope only, before `groups` and `userAttributes` are validated"
      upsertDefinitions(state, tenant, request, config);
      if (request.externalId !== undefined) {
        const attributes = resolveAttributes(state, tenant, request, config);
        resolveGroups(state, tenant, request, config);
        // "external users per account: 10,000 (raisable through support)"
        const limit = config.tenant.externalUserLimit;
        if (!tenant.externalUsers.has(request.externalId) && state.externalUserCount() >= limit) {
          throw new SimError(codes.externalUserLimit, MSG.externalUserLimit(limit));
        }
        applyExternalUser(tenant, request, attributes);
      }
      if (request.embedTenantProfile?.displayName !== undefined) tenant.profile = { displayName: request.embedTenantProfile.displayName };
    } finally {
      // a tenant this request created and left empty (failure before any write) is not kept
      if (!existingTenant && !tenant.externalUsers.size && !tenant.groups.size && !tenant.tenantGroups.size && !tenant.attributes.size && !tenant.profile) {
        state.tenants.delete(tenantName);
      }
    }
    state.sessionsIssued++;
    res.json({ sessionId: randomBytes(24).toString("base64url") });
  });
  return r;
}
