/**
 * Redis restarted mid-push: a private redis-server (AOF, `appendfsync always`) is SIGKILLed while an
 * IdP pushes 400 users (and a PATCH of every fourth), then started again on the same port and data dir.
 * - Every write that got a 2xx is still there after the restart, and every job that was queued at the
 *   kill is still known to its queue (waiting, active or completed).
 * - Writes during the outage get 503 with Retry-After, never a 404 or a 500; the IdP retries them after
 *   Retry-After (a create whose answer was lost meets 409 and is looked up), and ends with everything
 *   written.
 * - The worker rides out the restart: every user syncs, and the platform matches the bridge.
 */
import { inPool } from "../helpers/idp-client";
import { startFaultEnv, until, userBody, type FaultEnv } from "../helpers/fault-env";
import { ProcessSet, RedisServerProcess } from "../helpers/processes";

const USERS = 400;
const KILL_AT = 150;
/** Redis stays down until the IdP has met the outage this many times (503 + Retry-After), then restarts. */
const OUTAGE_ANSWERS = 8;

let e: FaultEnv;
let redis: RedisServerProcess;
beforeAll(async () => {
  const set = new ProcessSet();
  try {
    redis = await RedisServerProcess.start(set);
  } catch (err) {
    await set.killAll();
    throw err;
  }
  // latency and a small concurrency keep a backlog of queued jobs at the moment of the kill
  e = await startFaultEnv({ set, redisUrl: redis.url, faults: { latency: { fixedMs: 30, jitterMs: 10 } }, directory: { concurrency: 4 } });
  await e.startServer();
  await e.startWorker();
}, 60000);
afterAll(async () => e?.close(), 30000);

describe("Redis restarted mid-push (private redis-server with AOF)", () => {
  it("should keep every 2xx'd write and every queued job, answer 503 + Retry-After meanwhile, and sync everything", async () => {
    const idp = e.idp();
    const created = new Map<string, string>(); // userName → id, for every create answered 201 (or found after a lost answer)
    const patched = new Map<string, string>(); // id → title, for every PATCH answered 200
    let queuedAtKill: string[] = [];
    let restart: Promise<void> | undefined;

    await inPool(Array.from({ length: USERS }, (_, i) => i), 8, async (i) => {
      // a slow platform keeps reconciles in flight at the kill, however the push and the sync race on a
      // loaded machine (the directory admits `concurrency` jobs into its shard; the rest wait in its backlog)
      if (i === KILL_AT - 20) await e.sim.setFaults({ latency: { fixedMs: 2000, jitterMs: 0 } });
      if (i === KILL_AT) {
        queuedAtKill = await until("reconciles in flight before the kill", 20000, async () => {
          const ids = (await e.queue().getJobs(["waiting", "prioritized", "delayed", "active"])).map((j) => j.id!);
          return ids.length > 0 ? ids : null;
        }, 50) ?? [];
        await redis.kill("SIGKILL");
        // down until the IdP has seen the outage (the kill closed every connection, the worker's too)
        restart = until("the IdP to meet the outage", 30000, () => idp.log.filter((r) => r.status === 503).length >= OUTAGE_ANSWERS, 20)
          .then(() => redis.restart())
          .then(() => e.sim.setFaults({ latency: { fixedMs: 30, jitterMs: 10 } }));
      }
      const userName = `restart.user.${String(i).padStart(3, "0")}@example.com`;
      const { id, statuses } = await idp.createUser(userBody(userName), 60000);
      if (!id) throw new Error(`create ${userName} never succeeded: ${statuses.join(",")}`);
      created.set(userName, id);
      if (i % 4 === 0) {
        const title = `title-${i}`;
        const { reply } = await idp.sendRetrying("PATCH", `/Users/${id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "title", value: title }] });
        if (reply.status !== 200) throw new Error(`PATCH ${userName}: ${reply.status} ${JSON.stringify(reply.body)}`);
        patched.set(id, title);
      }
    });
    await restart;

    // what the IdP saw: 2xx, or 503 with Retry-After during the outage (409 only on a retried create)
    const statuses = new Set(idp.log.map((r) => r.status));
    const unavailable = idp.log.filter((r) => r.status === 503);
    expect(queuedAtKill.length).toBeGreaterThan(0);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.filter((r) => r.retryAfter !== "1")).toEqual([]);
    expect([...statuses].filter((s) => ![200, 201, 409, 503].includes(s))).toEqual([]);
    expect(idp.log.filter((r) => r.status === 409 && r.scimType !== "uniqueness")).toEqual([]);
    expect(created.size).toBe(USERS);

    // every accepted write survived the restart
    const stored = await e.users.find("wf", "id", [...created.values()]);
    expect(stored).toHaveLength(USERS);
    expect(stored.filter((u) => patched.has(u.id) && u.body.title !== patched.get(u.id))).toEqual([]);
    expect(await e.users.count("wf")).toBe(USERS);
    // every job queued at the kill is still known to the queue
    const states = await Promise.all(queuedAtKill.map((id) => e.queue().getJobState(id)));
    expect(states.filter((s) => s === "unknown")).toEqual([]);

    await until("every user synced after the restart", 60000, async () => (await e.counts()).synced === USERS, 500);
    expect(await e.counts()).toEqual({ pending: 0, synced: USERS, failed: 0, deprovisioned: 0 });
    const sim = await e.sim.state();
    expect(sim.scim.users).toHaveLength(USERS);
    expect(await e.diff()).toEqual([]);
  }, 150000);
});
