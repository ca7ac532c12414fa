/**
 * The SCIM server keeps the IdP's trail events and chart counts in the process and writes them a few times a
 * second (src/store/activity-store.ts, TRAIL_FLUSH_MS): here never by the timer (a minute), so what is in
 * Redis is what `close` wrote. A stopping server writes what it holds; a directory it stopped serving
 * (disabled, then purged by a delete) gets nothing written after the fact.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { createLogger } from "../../src/observability/logger";
import { createMetrics } from "../../src/observability/metrics";
import { userBody } from "../helpers/expect-scim";

let e: SyncEnv;
let s: BridgeServer;
let closed = false;

beforeAll(async () => {
  e = await startSyncEnv({ runtime: false });
  s = await startBridgeServer(e, createLogger("silent"), createMetrics(), { trailFlushMs: 60_000 });
});
afterAll(async () => { if (!closed) await s.close(); await e.close(); });

const directory = (id: string) => ({ id, target: "workforce", platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" } });
const scim = (dir: string, token: string, method = "GET", body?: object) => fetch(`${s.url}/scim/v2/${dir}/Users`, {
  method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" }, body: body && JSON.stringify(body),
});

async function create(id: string): Promise<string> {
  const res = await s.admin("/directories", { method: "POST", body: JSON.stringify(directory(id)) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: { secret: string } }).token.secret;
}

describe("the server's buffered IdP trail", () => {
  it("should write what it holds when it stops, and nothing of a directory it stopped serving", async () => {
    const tokens = { keep: await create("keep"), gone: await create("gone") };
    const ids: Record<string, string> = {};
    for (const dir of ["keep", "gone"] as const) {
      const res = await scim(dir, tokens[dir], "POST", userBody(`${dir}.user@example.com`));
      expect(res.status).toBe(201);
      ids[dir] = ((await res.json()) as { id: string }).id;
    }
    const trail = (dir: string) => `${e.prefix}:{${dir}}:a:u:${ids[dir]}`;
    const idpCounts = (dir: string) => e.redis.hgetall(`${e.prefix}:{${dir}}:c:idp`);
    expect(await e.redis.exists(trail("keep"))).toBe(0);

    expect((await s.admin("/directories/gone/disable", { method: "POST" })).status).toBe(200);
    // this server's registry has seen it once its SCIM answers 403
    await waitFor(async () => (await scim("gone", tokens.gone)).status === 403, 10000, "the server to stop serving gone");
    await s.close();
    closed = true;

    expect(await e.redis.xlen(trail("keep"))).toBe(1);
    expect(JSON.parse((await e.redis.xrange(trail("keep"), "-", "+"))[0][1][1])).toMatchObject({ type: "idp", method: "POST", status: 201 });
    expect(Object.values(await idpCounts("keep"))).toEqual(["1"]);
    expect(await e.redis.exists(trail("gone"))).toBe(0);
    expect(await idpCounts("gone")).toEqual({});
  });
});
