/**
 * Redis Sentinel (issue 12 item 3): the bridge finds the master through a sentinel (REDIS_SENTINELS +
 * REDIS_SENTINEL_MASTER), serves and syncs through it, and after the master is killed and the sentinel
 * promotes the replica, serves and syncs again without a restart. Writes wait for a replica's
 * acknowledgement (REDIS_REPLICA_ACK=1): the promoted master has none until the old master, restarted,
 * is made its replica by the sentinel; writes are answered 503 until then, and the IdP retries them.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { ProcessSet } from "../helpers/processes";
import { startSentinel, type LocalSentinel } from "../helpers/redis-cluster";
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";

const set = new ProcessSet();
let s: LocalSentinel;
let e: SyncEnv;

beforeAll(async () => {
  s = await startSentinel(set);
  e = await startSyncEnv({
    redisEnv: {
      REDIS_URL: "redis://127.0.0.1:6379", REDIS_SENTINELS: s.sentinels.join(","), REDIS_SENTINEL_MASTER: s.masterName,
      REDIS_REPLICA_ACK: "1", REDIS_REPLICA_ACK_TIMEOUT_MS: "500",
    },
    config: { server: { retryAfterSeconds: 1 } },
  });
}, 60000);
afterAll(async () => {
  await e?.close().catch(() => undefined);
  await set.killAll();
});

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";

/** Creates a user, retrying 503s (what an IdP does while Redis fails over). */
async function create(userName: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const res = await e.scim("wf").post("/Users", { schemas: [USER], userName, active: true });
    if (res.status === 201 || res.status === 409) return;
    expect(res.status).toBe(503);
    await sleep(100);
  }
  throw new Error(`${userName} never accepted`);
}

async function onPlatform(userName: string): Promise<boolean> {
  return (await e.simState()).scim.users.some((u) => u.userName.toLowerCase() === userName);
}

describe("the bridge on Redis Sentinel", () => {
  it("should sync through the master the sentinel names, and again after the sentinel promoted the replica", async () => {
    await create("before.failover@example.com");
    await waitFor(() => onPlatform("before.failover@example.com"), 20000, "first user on the platform");

    await s.master.proc.kill("SIGKILL");
    await waitFor(async () => (await s.currentMaster().catch(() => 0)) === s.replica.port, 30000, "the sentinel to promote the replica");
    await s.master.restart(); // the sentinel makes it the new master's replica
    await create("after.failover@example.com");
    await waitFor(() => onPlatform("after.failover@example.com"), 60000, "second user on the platform");
  });
});
