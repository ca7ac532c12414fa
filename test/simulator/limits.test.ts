/**
 * Contract tests of platform-api.md "Limits" that apply to generate-session: external users per account
 * (configurable, default 10,000) and the embedTenantName length (5 to 36; edge cases in
 * generate-session-identity.test.ts).
 */
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, generateSession, http, startTestSimulator } from "../helpers/simulator";

let sim: RunningSimulator;
afterEach(() => sim.close());

describe("external users per account", () => {
  it("should default to 10,000", async () => {
    sim = await startTestSimulator({ tenant: { name: "acme" } });
    expect(sim.config.tenant.externalUserLimit).toBe(10000);
  });

  it("should refuse a new external user beyond the limit, counted across embed tenants", async () => {
    sim = await startTestSimulator({ tenant: { name: "acme", externalUserLimit: 3 } });
    expect((await generateSession(sim, { deploymentId: 1, externalId: "a" })).status).toBe(200);
    expect((await generateSession(sim, { deploymentId: 1, externalId: "b", embedTenantName: "tenant-one" })).status).toBe(200);
    expect((await generateSession(sim, { deploymentId: 1, externalId: "c", embedTenantName: "tenant-two" })).status).toBe(200);
    const res = await generateSession(sim, { deploymentId: 1, externalId: "d" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("external user limit of 3 reached");
    expect(sim.state.snapshot().externalUserCount).toBe(3);
  });

  it("should still mint sessions for existing external users at the limit", async () => {
    sim = await startTestSimulator({ tenant: { name: "acme", externalUserLimit: 1 } });
    await generateSession(sim, { deploymentId: 1, externalId: "a" });
    expect((await generateSession(sim, { deploymentId: 1, externalId: "A " })).status).toBe(200);
  });

  it("should free room when an embed tenant is deleted", async () => {
    sim = await startTestSimulator({ tenant: { name: "acme", externalUserLimit: 1 } });
    await generateSession(sim, { deploymentId: 1, externalId: "a", embedTenantName: "tenant-one" });
    const del = await http(sim).delete("/api/v1/embed-tenants/tenant-one/").set("Authorization", `Api-Key ${KEYS.unscoped}`);
    expect(del.status).toBe(204);
    expect((await generateSession(sim, { deploymentId: 1, externalId: "b" })).status).toBe(200);
  });

  it("should answer the configured status at the limit", async () => {
    sim = await startTestSimulator({ tenant: { name: "acme", externalUserLimit: 1 }, statusCodes: { externalUserLimit: 403 } });
    await generateSession(sim, { deploymentId: 1, externalId: "a" });
    expect((await generateSession(sim, { deploymentId: 1, externalId: "b" })).status).toBe(403);
  });
});

describe("embedTenantName length", () => {
  it("should accept 5 and 36 characters and reject 4 and 37", async () => {
    sim = await startTestSimulator();
    const status = async (n: number) => (await generateSession(sim, { deploymentId: 1, externalId: "a", embedTenantName: "a".repeat(n) })).status;
    expect([await status(4), await status(5), await status(36), await status(37)]).toEqual([400, 200, 200, 400]);
  });
});
