/**
 * Options for what the contract does not show: where the platform's SCIM interface lives (`scimPath`) and
 * which status carries message-bearing failures (`messageFailureStatuses`), tested against the simulator.
 */
import { TransientError, ValidationError, createPlatformClient } from "../../src/platform";
import { startSimulator, type RunningSimulator } from "../../src/simulator/start-simulator";

const KEY = "not-shown-options-key";
let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, config: { apiKeys: [{ key: KEY }], deployments: [{ id: 1, name: "p" }], faults: { rateLimit: null } } });
});
afterAll(async () => sim.close());

const client = (o: Record<string, unknown> = {}) => createPlatformClient({ baseUrl: sim.baseUrl, apiKey: KEY, deploymentId: 1, ...o });

describe("platform SCIM path", () => {
  it("should send SCIM calls under scimPath (default /scim/v2)", async () => {
    const ok = client();
    expect(await ok.scim.findUserByUserName("nobody@example.com")).toBeNull();
    await ok.close();
    const elsewhere = client({ scimPath: "/identity/scim" });
    await expect(elsewhere.scim.findUserByUserName("nobody@example.com")).rejects.toMatchObject({ status: 404 });
    await elsewhere.close();
  });
});

describe("message-bearing failure status", () => {
  it("should treat a configured 5xx as a validation failure (not retried), and other 5xx as transient", async () => {
    sim.setFaults({ errors: { next: 1, statuses: [503] } });
    const strict = client({ messageFailureStatuses: [503] });
    await expect(strict.scim.findUserByUserName("a@example.com")).rejects.toBeInstanceOf(ValidationError);
    await strict.close();
    sim.setFaults({ errors: { next: 1, statuses: [503] } });
    const plain = client();
    await expect(plain.scim.findUserByUserName("a@example.com")).rejects.toBeInstanceOf(TransientError);
    await plain.close();
  });
});
