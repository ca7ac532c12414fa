/**
 * Issue 4 §5: "429 pauses that directory's work for `Retry-After` without spending attempts … One
 * directory's failures, pauses and rate limit never delay another directory." The simulator lets each key make
 * 20 calls in an hour and answers every further call 429 (`Retry-After: 1`): the 429s come from the count
 * of calls, not from how fast this machine sends them. `wf2` needs 10 calls (a lookup and a create for
 * each of its 5 users), `wf` about 80. `wf` pushes 40 users through it with only 2
 * attempts per job, so a 429 that spent an attempt would fail jobs. `wf2` has its own key and must sync
 * while `wf` is held. (How long `wf2` takes meanwhile is a figure of bench/timing, not a test.)
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, reconcileJobs, waitAllSynced, waitIdle } from "../helpers/sync-wait";
import { directoryQueue } from "../helpers/directory-queue";

const KEY2 = "test-platform-key-0002";
let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({
    sim: { apiKeys: [{ name: "bridge", key: PLATFORM_KEY }, { name: "bridge-2", key: KEY2 }] },
    directories: [{ id: "wf2", platform: { apiKeyEnv: "TEST_PLATFORM_KEY_2" } }],
    env: { TEST_PLATFORM_KEY_2: KEY2 },
    config: { sync: { attempts: 2 } },
  });
});
afterAll(async () => e.close());

describe("a 429 storm", () => {
  it("should hold only the rate-limited directory for Retry-After, spend no attempt, and sync everything", async () => {
    e.sim.setFaults({ rateLimit: { max: 20, durationMs: 3_600_000, retryAfterSeconds: 1 } });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await createUser(e, "wf", `storm${i}@example.com`));

    // while wf waits out its 429s, a rate-limited user shows the platform's message and no attempt
    const limited = await waitFor(async () => {
      for (const id of ids) {
        const s = await e.state.get("wf", "user", id);
        if (s.lastError === "rate limit exceeded") return s;
      }
      return undefined;
    }, 10000, "a rate-limited user");
    expect(limited).toMatchObject({ attempts: 0, status: "pending" });

    // the other directory syncs while wf is held (wf cannot finish: its key has no calls left)
    const others: string[] = [];
    for (let i = 0; i < 5; i++) others.push(await createUser(e, "wf2", `calm${i}@example.com`));
    await waitAllSynced(e, "wf2", "user", others);
    expect((await e.state.counts("wf")).synced).toBeLessThan(40);

    // a job sent back by two 429s has started three times; with 2 attempts it would have failed if they counted
    await waitFor(async () => (await directoryQueue(e.queues, "wf").getJobs(["wait", "delayed", "prioritized", "active"])).some((j) => j.attemptsStarted >= 3), 20000, "a job 429'd twice");
    e.sim.setFaults({}); // the window ends

    await waitAllSynced(e, "wf", "user", ids, 30000);
    await waitIdle(e, "wf");
    const s = await e.simState();
    expect(s.counters.faults.rateLimited).toBeGreaterThan(0);
    expect(await directoryQueue(e.queues, "wf").getFailedCount()).toBe(0);
    const jobs = (await Promise.all(ids.map((id) => reconcileJobs(e, "wf", "user", id)))).flat();
    expect(jobs.every((j) => j.attemptsMade === 1)).toBe(true); // the completing run only
    expect(jobs.some((j) => j.attemptsStarted > 1)).toBe(true); // 429s sent jobs back to wait
    expect((await e.state.counts("wf")).failed).toBe(0);
  });
});
