/**
 * Issue 4 §5: "401 pauses the directory and records why until an operator resumes it … One directory's
 * failures, pauses and rate limit never delay another directory." Three workforce directories, each with
 * its own platform key: `wf` starts with a key the platform does not know, `wf2` is healthy, and `wf3`'s
 * key expires while it syncs (the platform's admin sets `expiresAt`, then extends it again).
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, simUser, waitAllSynced } from "../helpers/sync-wait";
import { resumeDirectory } from "../../src/sync/control/directory-control";
import { directoryQueue } from "../helpers/directory-queue";

const KEY2 = "test-platform-key-0002";
const KEY3 = "test-platform-key-0003";
const env = { TEST_PLATFORM_KEY: "not-a-platform-key-0000", TEST_PLATFORM_KEY_2: KEY2, TEST_PLATFORM_KEY_3: KEY3 };
let e: SyncEnv;
beforeAll(async () => {
  e = await startSyncEnv({
    sim: { apiKeys: [{ key: PLATFORM_KEY }, { key: KEY2 }, { key: KEY3 }] },
    directories: [{ id: "wf2", platform: { apiKeyEnv: "TEST_PLATFORM_KEY_2" } }, { id: "wf3", platform: { apiKeyEnv: "TEST_PLATFORM_KEY_3" } }],
    env,
  });
});
afterAll(async () => e.close());

const UNAUTHORIZED = "credential missing, malformed or expired";

describe("a 401 from the platform", () => {
  it("should pause the directory with the reason in s:meta and its queue paused, while another directory keeps syncing", async () => {
    const meta = await waitFor(async () => {
      const m = await e.state.meta("wf");
      return m.paused ? m : undefined;
    }, 5000, "wf to be paused");
    // each thing said once (issue 14 §4): the answer, what it means, what the platform added
    expect(meta.paused).toBe(`platform answered 401 (${UNAUTHORIZED}): unknown key`);
    expect(Date.parse(meta.pausedAt)).not.toBeNaN();
    expect(await directoryQueue(e.queues, "wf").isPaused()).toBe(true);

    const stuck = [await createUser(e, "wf", "paused.one@example.com"), await createUser(e, "wf", "paused.two@example.com")];
    const fine = [await createUser(e, "wf2", "healthy.one@example.com"), await createUser(e, "wf2", "healthy.two@example.com")];
    await waitAllSynced(e, "wf2", "user", fine, 5000);
    // wf's reconciles are queued (dispatched) in its paused queue: the workers had their chance and left them
    await waitFor(async () => (await e.redis.xlen(e.users.keys("wf").outbox)) === 0 && (await directoryQueue(e.queues, "wf").getWaitingCount()) === stuck.length, 5000, "wf's reconciles queued");
    for (const id of stuck) expect((await e.state.get("wf", "user", id)).status).toBe("pending");
    expect(await simUser(e, "paused.one@example.com")).toBeUndefined();
    expect(await directoryQueue(e.queues, "wf2").isPaused()).toBe(false);
    expect(await e.state.meta("wf2")).not.toHaveProperty("paused");

    // the operator fixes the key and restarts the workers: the directory stays paused until resumed
    await e.runtime!.close();
    const restarted = new Date().toISOString();
    await e.startRuntime({ ...env, TEST_PLATFORM_KEY: PLATFORM_KEY });
    // the new workers checked the fixed key (the moment an automatic resume would happen) and left wf paused
    await waitFor(async () => {
      const m = await e.state.meta("wf");
      return m.keyStatus === "ok" && m.keyCheckedAt! >= restarted;
    }, 5000, "wf's key checked again");
    expect(await directoryQueue(e.queues, "wf").isPaused()).toBe(true);
    expect((await e.state.get("wf", "user", stuck[0])).status).toBe("pending");

    await resumeDirectory(e.queues, e.state, "wf");
    await waitAllSynced(e, "wf", "user", stuck, 5000);
    expect(await e.state.meta("wf")).not.toHaveProperty("paused");
    expect(await directoryQueue(e.queues, "wf").isPaused()).toBe(false);
  });

  it("should pause when the key expires mid-push, spend no attempt, and sync everything once resumed", async () => {
    const first = await createUser(e, "wf3", "before.expiry@example.com");
    await waitAllSynced(e, "wf3", "user", [first], 5000);

    const key = e.sim.config.apiKeys.find((k) => k.key === KEY3)!;
    key.expiresAt = "2020-01-01T00:00:00Z";
    const later = [await createUser(e, "wf3", "after.expiry1@example.com"), await createUser(e, "wf3", "after.expiry2@example.com")];
    const meta = await waitFor(async () => {
      const m = await e.state.meta("wf3");
      return m.paused ? m : undefined;
    }, 5000, "wf3 to be paused");
    expect(meta.paused).toBe(`platform answered 401 (${UNAUTHORIZED}): key expired`);
    expect(await directoryQueue(e.queues, "wf3").isPaused()).toBe(true);
    const hit = await waitFor(async () => {
      const states = await Promise.all(later.map((id) => e.state.get("wf3", "user", id)));
      return states.find((s) => s.lastError);
    }, 5000, "a user that met the 401");
    expect(hit).toMatchObject({ status: "pending", attempts: 0, lastError: `${UNAUTHORIZED}: key expired` });

    key.expiresAt = undefined; // the platform's admin extends the key
    await resumeDirectory(e.queues, e.state, "wf3");
    await waitAllSynced(e, "wf3", "user", later, 5000);
    expect(await directoryQueue(e.queues, "wf3").getFailedCount()).toBe(0);
    expect((await e.state.counts("wf3")).synced).toBe(3);
  });
});
