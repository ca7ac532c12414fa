/**
 * A wrong-token request to /scim/v2/<guess> does not tell whether the directory exists: the same status,
 * body and headers, and on an open /metrics the same series moves (`directory="unauthenticated"`) while
 * the existing directory's opaque label does not.
 */
import { startSyncEnv, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { createLogger } from "../../src/observability/logger";

let e: SyncEnv;
let s: BridgeServer;
beforeAll(async () => {
  e = await startSyncEnv({ runtime: false });
  s = await startBridgeServer(e, createLogger("silent"));
});
afterAll(async () => { await s.close(); await e.close(); });

const metrics = async () => (await fetch(`${s.url}/metrics`)).text();
/** The SCIM request series of the exposition (opaque labels: /metrics is open here). */
const scimLines = (text: string) => text.split("\n").filter((l) => l.startsWith("scim_requests_total{"));
const VARYING = new Set(["date", "x-request-id", "etag"]);
async function answer(path: string, token: string): Promise<{ status: number; body: string; headers: Array<[string, string]> }> {
  const r = await fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: r.status, body: await r.text(), headers: [...r.headers].filter(([k]) => !VARYING.has(k)) };
}

describe("wrong tokens for existing and missing directories", () => {
  it("should answer both alike", async () => {
    const existing = await answer("/scim/v2/wf/Users", "wrong-token");
    const missing = await answer("/scim/v2/acme-corp/Users", "wrong-token");
    expect(existing.status).toBe(401);
    expect(missing).toEqual(existing);
  });

  it("should move the same /metrics series for both, and never the existing directory's label", async () => {
    // one valid request first, so the existing directory has a series of its own to watch
    expect((await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { Authorization: "Bearer wf-token-1" } })).status).toBe(200);
    const before = scimLines(await metrics());
    const own = before.filter((l) => !l.includes('directory="unauthenticated"'));
    expect(own.length).toBeGreaterThan(0);

    await answer("/scim/v2/wf/Users", "wrong-token");
    const afterExisting = scimLines(await metrics());
    await answer("/scim/v2/acme-corp/Users", "wrong-token");
    const afterMissing = scimLines(await metrics());

    const changed = (a: string[], b: string[]) => b.filter((l) => !a.includes(l)).map((l) => l.replace(/ \d+$/, ""));
    expect(changed(before, afterExisting)).toEqual(['scim_requests_total{directory="unauthenticated",method="GET",status="401"}']);
    expect(changed(afterExisting, afterMissing)).toEqual(changed(before, afterExisting));
    expect(afterMissing.filter((l) => !l.includes('directory="unauthenticated"'))).toEqual(own);
  });
});
