/**
 * Contract tests of platform-api.md "Authentication" and the 401/403 rows of "Errors", over HTTP against
 * the simulator: REST `Bearer`, embed `Api-Key`, SCIM either; scoped and unscoped keys.
 */
import type { RunningSimulator } from "../../src/simulator";
import { KEYS, generateSession, http, startTestSimulator } from "../helpers/simulator";

let sim: RunningSimulator;
beforeEach(async () => (sim = await startTestSimulator()));
afterEach(() => sim.close());

describe("REST API (/api/v1/...)", () => {
  it("should accept Authorization: Bearer <key> (rule 2)", async () => {
    const res = await http(sim).get("/api/v1/deployments").set("Authorization", `Bearer ${KEYS.unscoped}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ id: 1, name: "production" }, { id: 2, name: "staging" }]);
  });

  it("should answer 401 when the Authorization header is missing (rule 6)", async () => {
    const res = await http(sim).get("/api/v1/deployments");
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/credential missing, malformed or expired/);
  });

  it("should answer 401 when the credential is malformed", async () => {
    for (const header of ["Bearer", `Bearer  ${KEYS.unscoped}`, KEYS.unscoped, `Basic ${KEYS.unscoped}`]) {
      expect((await http(sim).get("/api/v1/deployments").set("Authorization", header)).status).toBe(401);
    }
  });

  it("should answer 401 when the REST API is sent Api-Key instead of Bearer", async () => {
    expect((await http(sim).get("/api/v1/deployments").set("Authorization", `Api-Key ${KEYS.unscoped}`)).status).toBe(401);
  });

  it("should answer 401 when the key is unknown", async () => {
    expect((await http(sim).get("/api/v1/deployments").set("Authorization", "Bearer not-a-real-key")).status).toBe(401);
  });

  it("should answer 401 when the key is expired", async () => {
    const res = await http(sim).get("/api/v1/deployments").set("Authorization", `Bearer ${KEYS.expired}`);
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/expired/);
  });

  it("should list only the deployments a scoped key covers (rule 5)", async () => {
    const res = await http(sim).get("/api/v1/deployments").set("Authorization", `Bearer ${KEYS.scoped}`);
    expect(res.body).toEqual([{ id: 1, name: "production" }]);
  });

  it("should answer 403 when a scoped key targets another deployment (rule 5, Errors row 2)", async () => {
    const res = await http(sim).get("/api/v1/deployments/2/folders/7/ancestors").set("Authorization", `Bearer ${KEYS.scoped}`);
    expect(res.status).toBe(403);
  });

  it("should not answer 403 when a scoped key targets its own deployment", async () => {
    const res = await http(sim).get("/api/v1/deployments/1/folders/7/ancestors").set("Authorization", `Bearer ${KEYS.scoped}`);
    expect(res.status).not.toBe(403);
    expect(res.status).not.toBe(401);
  });

  it("should let an unscoped key target every deployment (rule 5)", async () => {
    for (const id of [1, 2]) {
      expect((await http(sim).get(`/api/v1/deployments/${id}/folders`).set("Authorization", `Bearer ${KEYS.unscoped}`)).status).not.toBe(403);
    }
  });
});

describe("embed endpoints (Api-Key)", () => {
  const body = { deploymentId: 1, externalId: "viewer@x.com" };

  it("should accept Authorization: Api-Key <key> on generate-session (rule 3)", async () => {
    const res = await generateSession(sim, body);
    expect(res.status).toBe(200);
    expect(typeof res.body.sessionId).toBe("string");
  });

  it("should answer 401 when generate-session is sent Bearer instead of Api-Key", async () => {
    const res = await http(sim).post("/api/v1/embed/generate-session").set("Authorization", `Bearer ${KEYS.unscoped}`).send(body);
    expect(res.status).toBe(401);
  });

  it("should answer 403 when deploymentId is outside the key's scope (rule 5, Errors row 3)", async () => {
    const res = await generateSession(sim, { ...body, deploymentId: 2 }, KEYS.scoped);
    expect(res.status).toBe(403);
  });

  it("should accept a deploymentId inside the key's scope", async () => {
    expect((await generateSession(sim, body, KEYS.scoped)).status).toBe(200);
  });

  it("should answer 401 on the embed-tenant admin endpoints without Api-Key", async () => {
    expect((await http(sim).get("/api/v1/embed-tenants/acme-tenant/groups").set("Authorization", `Bearer ${KEYS.unscoped}`)).status).toBe(401);
    expect((await http(sim).get("/api/v1/embed-tenants/acme-tenant/groups").set("Authorization", `Api-Key ${KEYS.unscoped}`)).status).toBe(200);
  });

  it("should answer 403 on the embed-tenant admin endpoints for a key without admin access", async () => {
    expect((await http(sim).get("/api/v1/embed-tenants/acme-tenant/groups").set("Authorization", `Api-Key ${KEYS.nonAdmin}`)).status).toBe(403);
  });
});

describe("SCIM API (/api/scim/v2/...)", () => {
  it("should accept both Bearer and Api-Key (rule 4)", async () => {
    for (const scheme of ["Bearer", "Api-Key"]) {
      expect((await http(sim).get("/api/scim/v2/Users").set("Authorization", `${scheme} ${KEYS.unscoped}`)).status).toBe(200);
    }
  });

  it("should answer 401 without a credential", async () => {
    const res = await http(sim).get("/api/scim/v2/Users");
    expect(res.status).toBe(401);
    expect(res.body.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
  });

  it("should answer 403 to a deployment-scoped key on account-level SCIM paths by default (rule 7)", async () => {
    expect((await http(sim).get("/api/scim/v2/Users").set("Authorization", `Bearer ${KEYS.scoped}`)).status).toBe(403);
  });

  it("should let a deployment-scoped key through when scopedKeyAccountAccess is allow", async () => {
    await sim.close();
    sim = await startTestSimulator({ scopedKeyAccountAccess: "allow" });
    expect((await http(sim).get("/api/scim/v2/Users").set("Authorization", `Bearer ${KEYS.scoped}`)).status).toBe(200);
  });
});
