/**
 * A directory delete answers only after the directory's platform calls in progress have finished: with a
 * slow platform and creates in flight, no platform user of the deleted directory is created after the
 * delete's answer (counted again once the worker has stopped, which waits for its running jobs).
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";

let e: SyncEnv;
let s: BridgeServer;
beforeAll(async () => {
  e = await startSyncEnv({ sim: { faults: { latency: { fixedMs: 400, jitterMs: 0 }, rateLimit: null } } });
  s = await startBridgeServer(e);
});
afterAll(async () => { await s.close(); await e.close(); });

const created = async () => (await e.simState()).scim.users.filter((u) => String(u.externalId ?? "").startsWith("slow:")).length;

it("should answer a delete only once the directory's in-flight platform creates have finished", async () => {
  const made = await s.admin("/directories", { method: "POST", body: JSON.stringify({
    id: "slow", target: "workforce", concurrency: 4, platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" },
  }) });
  expect(made.status).toBe(201);
  const token = ((await made.json()) as { token: { secret: string } }).token.secret;
  const post = (i: number) => fetch(`${s.url}/scim/v2/slow/Users`, {
    method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" }, body: JSON.stringify(userBody(`slow.${i}@example.com`)),
  });
  for (let i = 0; i < 16; i++) expect((await post(i)).status).toBe(201);
  // creates are landing, one platform round trip (400 ms) at a time per job
  await waitFor(async () => (await created()) >= 1, 20000, "the first platform create of the directory");

  expect((await s.admin("/directories/slow/disable", { method: "POST" })).status).toBe(200);
  const del = await s.admin("/directories/slow?platform=leave", { method: "DELETE" });
  expect(del.status).toBe(200);
  const atAnswer = await created();

  // the worker stops once its running jobs have finished: any create still in flight would land by then
  await e.runtime!.close();
  e.runtime = undefined;
  expect(await created()).toBe(atAnswer);
});
