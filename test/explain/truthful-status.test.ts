/**
 * State that tells the truth, over real Redis, real BullMQ workers and the simulator over HTTP: a platform
 * that does not answer reads "platform unreachable since <time>" (admin API, CLI status, /metrics, explain),
 * not "syncing"; a paused directory shows what waits; the lag is the age of the oldest waiting change,
 * which grows while nothing finishes; and `resume` takes the backlog up again.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig } from "../helpers/resync";
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, waitStatus } from "../helpers/sync-wait";
import type { DirectoryStatus } from "../../src/admin/directory-status";
import type { Explanation } from "../../src/explain/explain";
import { createOpsContext } from "../../src/admin/ops-context";
import { refreshGauges } from "../../src/roles/metrics-handler";
import { createMetrics } from "../../src/observability/metrics";
import { redisBackend } from "../../src/cli/backends/redis-backend";
import { statusCommand } from "../../src/cli/commands/ops";
import { resumeCommand } from "../../src/cli/commands/explain";
import { MinuteCounters } from "../../src/activity/minute-counters";
import { sampleCharts } from "../../src/sync/waiting/chart-sampler";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let e: SyncEnv;
const saved = process.env.TEST_PLATFORM_KEY;

beforeAll(async () => {
  process.env.TEST_PLATFORM_KEY = PLATFORM_KEY;
  e = await startSyncEnv({ config: adminConfig });
});
afterAll(async () => {
  await e.close();
  if (saved === undefined) delete process.env.TEST_PLATFORM_KEY; else process.env.TEST_PLATFORM_KEY = saved;
});

async function status(dir: string): Promise<DirectoryStatus> {
  const res = await request(adminApp(e)).get(`/admin/directories/${dir}`).set(auth);
  expect(res.status).toBe(200);
  return res.body as DirectoryStatus;
}

/** What `scim-bridge status` prints, run in this process on Redis with the environment's configuration. */
async function cliStatus(): Promise<string> {
  const b = await redisBackend(e.config);
  const lines: string[] = [];
  try { await statusCommand(b, false, (l) => lines.push(l)); } finally { await b.close(); }
  return lines.join("\n");
}

describe("truthful status", () => {
  it("should say 'platform unreachable since' while the platform does not answer, and clear it when it does", async () => {
    const before = new Date().toISOString();
    e.sim.setFaults({ outage: { forSeconds: 600, mode: "drop" } });
    let id: string;
    try {
      id = await createUser(e, "wf", "outage@example.com");
      const s = await waitFor(async () => { const x = await status("wf"); return x.platform.unreachableSince ? x : undefined; }, 15000, "unreachable");
      expect(s.health).toBe("platform unreachable");
      expect(s.platform.reachable).toBe(false);
      expect(s.platform.unreachableSince! >= before).toBe(true);
      expect(await cliStatus()).toMatch(new RegExp(`^wf\\s+platform unreachable .* · PLATFORM UNREACHABLE since ${s.platform.unreachableSince!.replace(/[.]/g, "\\.")}`, "m"));
      const x = (await request(adminApp(e)).get("/admin/directories/wf/explain").query({ resource: id }).set(auth)).body as Explanation;
      expect(x.blocker).toMatchObject({ code: "platform-unreachable", message: expect.stringContaining(`platform unreachable since ${s.platform.unreachableSince}`) });
      const m = createMetrics();
      const c = createOpsContext(e.config, e.redis);
      try { await refreshGauges(c, m); } finally { await c.queues.close(); }
      const since = (await m.platformUnreachableSince.get()).values.find((v) => v.labels.directory === "wf")!.value;
      expect(since).toBe(Math.floor(Date.parse(s.platform.unreachableSince!) / 1000));
      expect((await m.platformHealthy.get()).values.find((v) => v.labels.directory === "wf")!.value).toBe(0);
    } finally {
      e.sim.setFaults({ outage: null });
    }
    await waitStatus(e, "wf", "user", id, "synced", 30000);
    const after = await waitFor(async () => { const x = await status("wf"); return x.platform.reachable ? x : undefined; }, 15000, "reachable again");
    expect(after.health).not.toBe("platform unreachable");
  });

  it("should show a paused directory's backlog and the age of its oldest waiting change, growing, then resume it", async () => {
    const pausedAt = new Date().toISOString();
    await e.state.setMeta("wf", { paused: "paused by an operator for the test", pausedAt });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await createUser(e, "wf", `waiting${n}@example.com`));
    // the pause holds them in the backlog (or the outbox); their wait is counted from their change, not from a job
    const s = await waitFor(async () => { const x = await status("wf"); return x.lag.waiting >= 3 ? x : undefined; }, 10000, "backlog");
    expect(s).toMatchObject({ health: "paused", paused: { reason: "paused by an operator for the test" }, queue: { paused: true } });
    expect(s.queue.waiting + s.queue.outbox).toBeGreaterThanOrEqual(3);
    expect(s.lag.oldestWaitingSince! >= pausedAt).toBe(true);
    const grown = await waitFor(async () => { const x = await status("wf"); return x.lag.ageMs >= 1500 ? x : undefined; }, 10000, "the wait grows");
    // the same changes, older now (a change taken from the outbox into the backlog is dated by then: a few ms later)
    expect(Date.parse(grown.lag.oldestWaitingSince!) - Date.parse(s.lag.oldestWaitingSince!)).toBeLessThan(1000);
    expect(await cliStatus()).toMatch(/^wf\s+paused\s+.* · waiting [3-9]\d* \(backlog \d+, outbox \d+, running \d+\), oldest \d+ s · .* · PAUSED: paused by an operator for the test$/m);
    // the lag chart plots that age, though no job finished this minute
    const counters = new MinuteCounters(e.redis, e.prefix);
    await sampleCharts({ redis: e.redis, keyPrefix: e.prefix, state: e.state, counters, probe: (dirs) => e.runtime!.queues.admission.probe(dirs), directories: () => ["wf"] });
    expect((await counters.day("wf", "lag")).at(-1)).toBeGreaterThanOrEqual(1500);

    const b = await redisBackend(e.config);
    const lines: string[] = [];
    try { await resumeCommand(b, "wf", (l) => lines.push(l)); } finally { await b.close(); }
    expect(lines.join("\n")).toMatch(/^wf resumed \(it was paused: paused by an operator for the test\); \d+ change\(s\) in its backlog are admitted$/);
    for (const id of ids) await waitStatus(e, "wf", "user", id, "synced");
    const done = await waitFor(async () => { const x = await status("wf"); return x.lag.waiting === 0 ? x : undefined; }, 10000, "nothing waits");
    expect(done.lag).toEqual({ oldestWaitingSince: null, ageMs: 0, waiting: 0 });
  });
});
