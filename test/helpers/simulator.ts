/**
 * Starts a platform simulator for one test on a free port, with a standard config: deployments 1 and 2,
 * an unscoped key, a key scoped to deployment 1, an expired key and a non-admin key, a tenant-wide catalog.
 */
import request from "supertest";
import { startSimulator, type RunningSimulator, type SimConfigInput } from "../../src/simulator";

/** The keys of the standard config. */
export const KEYS = {
  unscoped: "key-unscoped-000001",
  scoped: "key-scoped-dep1-000002",
  expired: "key-expired-000003",
  nonAdmin: "key-nonadmin-000004",
} as const;

/** The standard simulator config, with `overrides` merged at the top level. */
export function simConfig(overrides: Partial<SimConfigInput> = {}): SimConfigInput {
  return {
    tenant: { name: "acme", plan: "enterprise", useCreatorMode: true, externalUserLimit: 10000 },
    apiKeys: [
      { key: KEYS.unscoped, name: "unscoped" },
      { key: KEYS.scoped, name: "scoped", deployments: [1] },
      { key: KEYS.expired, name: "expired", expiresAt: "2020-01-01T00:00:00Z" },
      { key: KEYS.nonAdmin, name: "non-admin", admin: false },
    ],
    deployments: [
      { id: 1, name: "production" },
      { id: 2, name: "staging" },
    ],
    internalUsers: ["analyst@acme.example"],
    groups: ["Sales", "Finance"],
    userAttributes: [
      { name: "region", type: "string" },
      { name: "level", type: "number" },
      { name: "regions", type: "string_array" },
      { name: "codes", type: "number_array" },
      { name: "vip", type: "boolean" },
    ],
    ...overrides,
  };
}

/** Starts a simulator with `simConfig(overrides)`. */
export function startTestSimulator(overrides: Partial<SimConfigInput> = {}): Promise<RunningSimulator> {
  return startSimulator({ port: 0, config: simConfig(overrides) });
}

/** supertest agent against the running simulator (real HTTP). */
export function http(sim: RunningSimulator) {
  return request(sim.url);
}

/** POST generate-session with `Api-Key <key>`. */
export function generateSession(sim: RunningSimulator, body: unknown, key: string = KEYS.unscoped) {
  return http(sim).post("/api/v1/embed/generate-session").set("Authorization", `Api-Key ${key}`).send(body as object);
}

/** The embed tenant's state. */
export function tenantState(sim: RunningSimulator, name: string) {
  return sim.state.snapshot().tenants[name];
}
