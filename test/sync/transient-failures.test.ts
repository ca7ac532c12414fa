/**
 * Issue 4 §5: "Transient errors retry with exponential backoff and jitter". Injected 5xx answers and dropped
 * connections (socket destroyed without an answer) are retried by BullMQ with the bridge backoff
 * (sync.backoffMs 100 here: 50–100 ms, then 100–200 ms, …) until everything syncs; none fails. Past
 * the last attempt (sync.attempts) the item is failed, with the platform's last message, until replayed.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createGroup, createUser, simGroup, waitAllSynced, waitReconcileJobs, waitStatus } from "../helpers/sync-wait";
import { retryFailed } from "../../src/sync/control/directory-control";
import { directoryQueue } from "../helpers/directory-queue";

let e: SyncEnv;
beforeAll(async () => {
  // 12 attempts: at 30 % failing calls a group's retry (read the platform group, then PATCH its members)
  // passes with p ≈ 0.49, so the default 8 would fail one of the three groups in ~1.4 % of runs
  e = await startSyncEnv({ config: { sync: { attempts: 12 } } });
  await waitFor(async () => (await e.simState()).counters.endpoints["GET /v1/deployments"]?.reads === 2, 5000, "the key checks");
});
afterAll(async () => e.close());
afterEach(() => { e.sim.setFaults({}); });

type Seen = { attempts: number; lastError?: string; at?: string; status?: string; syncedAt?: string };

/** Polls one user's sync state every 10 ms until synced; returns every distinct (status, attempts) seen. */
async function watch(id: string, timeoutMs = 10000): Promise<Seen[]> {
  const seen: Seen[] = [];
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = await e.state.get("wf", "user", id);
    const last = seen[seen.length - 1];
    if (!last || last.attempts !== s.attempts || last.status !== s.status) seen.push({ attempts: s.attempts, lastError: s.lastError, at: s.changedAt, status: s.status, syncedAt: s.syncedAt });
    if (s.status === "synced") return seen;
    if (Date.now() > end) throw new Error(`user ${id} did not sync; seen ${JSON.stringify(seen)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("transient failures", () => {
  it("should retry 5xx answers with growing delays, recording each attempt, until the user syncs", async () => {
    // one retry layer: the transport makes one call per job attempt, so two 500s cost exactly two job attempts
    const before = (await e.simState()).counters.faults.errors ?? 0;
    e.sim.setFaults({ errors: { next: 2, statuses: [500] } });
    const id = await createUser(e, "wf", "five.hundred@example.com");
    const seen = await watch(id);
    const retries = seen.filter((s) => s.status === "pending" && s.attempts > 0);
    expect(retries.map((s) => [s.attempts, s.lastError])).toEqual([[1, "simulated 500"], [2, "simulated 500"]]);
    const synced = seen[seen.length - 1];
    expect(synced).toMatchObject({ attempts: 0, lastError: undefined });
    // backoff after attempt 1 ≥ 50 ms and after attempt 2 ≥ 100 ms
    expect(Date.parse(retries[1].at!) - Date.parse(retries[0].at!)).toBeGreaterThanOrEqual(50);
    expect(Date.parse(synced.syncedAt!) - Date.parse(retries[1].at!)).toBeGreaterThanOrEqual(100);
    expect((await waitReconcileJobs(e, "wf", "user", id))[0].attemptsMade).toBe(3);
    expect((await e.simState()).counters.faults.errors - before).toBe(2);
  });

  it("should retry a dropped connection and sync", async () => {
    e.sim.setFaults({ drop: { next: 2 } });
    const id = await createUser(e, "wf", "dropped@example.com");
    const seen = await watch(id);
    expect(seen.find((s) => s.attempts === 1)?.lastError).toMatch(/^connection failed/);
    expect((await e.simState()).counters.faults.dropped).toBeGreaterThanOrEqual(2);
  });

  it("should sync 30 users and 3 groups through 15% 5xx and 15% dropped connections with no failure and no duplicate", async () => {
    const postsBefore = (await e.simState()).counters.endpoints["POST /scim/v2/Users"]?.writes ?? 0;
    e.sim.setFaults({ errors: { rate: 0.15 }, drop: { rate: 0.15 } });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await createUser(e, "wf", `flaky${i}@example.com`));
    const gids = [
      await createGroup(e, "wf", "Flaky A", ids.slice(0, 10)),
      await createGroup(e, "wf", "Flaky B", ids.slice(10, 20)),
      await createGroup(e, "wf", "Flaky C", ids.slice(20, 30)),
    ];
    await waitAllSynced(e, "wf", "user", ids, 30000);
    await waitAllSynced(e, "wf", "group", gids, 30000);
    await waitFor(async () => {
      const groups = await Promise.all(["Flaky A", "Flaky B", "Flaky C"].map((n) => simGroup(e, n)));
      return groups.every((g) => g?.members.length === 10);
    }, 20000, "every membership on the platform");
    e.sim.setFaults({});

    const s = await e.simState();
    expect(s.counters.faults.errors + s.counters.faults.dropped).toBeGreaterThan(0);
    expect(s.scim.users.filter((u) => u.userName.startsWith("flaky"))).toHaveLength(30);
    expect(s.counters.endpoints["POST /scim/v2/Users"].writes - postsBefore).toBe(30);
    expect(await directoryQueue(e.queues, "wf").getFailedCount()).toBe(0);
    const counts = await e.state.counts("wf");
    expect(counts.failed).toBe(0);
    expect(counts.pending).toBe(0);
  }, 90000); // its own waits allow 30 + 30 + 20 s on a loaded machine
});

describe("transient failures past the last attempt", () => {
  let short: SyncEnv;
  beforeAll(async () => { short = await startSyncEnv({ config: { sync: { attempts: 2 } } }); });
  afterAll(async () => short.close());

  it("should mark the item failed with the platform's last message, keep it listed, and sync it on request", async () => {
    short.sim.setFaults({ errors: { rate: 1, statuses: [502] } });
    const id = await createUser(short, "wf", "exhausted@example.com");
    const failed = await waitStatus(short, "wf", "user", id, "failed", 5000);
    expect(failed).toMatchObject({ attempts: 2, lastError: "simulated 502" });
    const [job] = await waitReconcileJobs(short, "wf", "user", id, 1, "failed");
    expect(job).toMatchObject({ attemptsMade: 2, failedReason: "simulated 502" });
    expect(await short.state.inStatus("wf", "failed")).toEqual([{ kind: "user", id }]);

    short.sim.setFaults({});
    await retryFailed(short.state, "wf", (kind, rid) => short.queues.enqueue("wf", kind, rid));
    const st = await waitStatus(short, "wf", "user", id, "synced", 5000);
    expect(st).toMatchObject({ attempts: 0 });
    expect(st.lastError).toBeUndefined();
  });
});
