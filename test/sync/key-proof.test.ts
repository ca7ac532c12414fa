/**
 * A platform key proven lately is not checked again: a worker that starts (or a second worker) skips the
 * key check of a directory whose meta records that the same key (by fingerprint) worked less than half
 * `sync.keyCheckIntervalMs` ago; another key, an old proof or a status other than "ok" is checked at once.
 * Workers that start together check each key once (a claim while one checks). Through real Redis, the
 * runtime and the simulator's count of `GET /v1/deployments` (the key check).
 */
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";

const OTHER_KEY = "test-platform-key-0002";

describe("platform key checks at worker start", () => {
  let e: SyncEnv;
  beforeAll(async () => {
    e = await startSyncEnv({
      sim: { apiKeys: [{ name: "bridge", key: PLATFORM_KEY }, { name: "bridge-rotated", key: OTHER_KEY }] },
      config: { sync: { keyCheckIntervalMs: 3_600_000 } },
    });
    await e.runtime!.keyChecksSettled();
  });
  afterAll(async () => { await e.close(); });

  /** Key checks the simulator has answered (each lists the deployments). */
  async function keyChecks(): Promise<number> {
    const { endpoints } = (await e.simState()).counters;
    return Object.entries(endpoints).filter(([route]) => /^GET \S*\/deployments$/.test(route)).reduce((n, [, c]) => n + c.reads, 0);
  }

  async function restart(key = PLATFORM_KEY): Promise<void> {
    await e.runtime!.close();
    await e.startRuntime({ TEST_PLATFORM_KEY: key });
    await e.runtime!.keyChecksSettled();
  }

  it("should record the check with a fingerprint that does not contain the key", async () => {
    const meta = await e.state.meta("wf");
    expect(meta.keyStatus).toBe("ok");
    expect(meta.keyFingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(meta)).not.toContain(PLATFORM_KEY);
    expect(await keyChecks()).toBe(2); // wf and em, once each
  });

  it("should not check again at a restart when the same key was proven lately", async () => {
    const before = await keyChecks();
    const checkedAt = (await e.state.meta("wf")).keyCheckedAt;
    await restart();
    expect(await keyChecks()).toBe(before);
    expect((await e.state.meta("wf")).keyCheckedAt).toBe(checkedAt);
  });

  it("should not rewrite a fresh proof at the first successful call after a restart", async () => {
    const checkedAt = (await e.state.meta("wf")).keyCheckedAt;
    await restart();
    const res = await e.scim("wf").post("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "proof.keeper@example.com" }).expect(201);
    await waitFor(async () => (await e.state.get("wf", "user", res.body.id)).status === "synced" || undefined, 15000, "user synced");
    // the call succeeded; the proof it would refresh is younger than the refresh interval (10 s)
    expect((await e.state.meta("wf")).keyCheckedAt).toBe(checkedAt);
  });

  it("should check at once a directory whose proof is old or whose status is not ok", async () => {
    await e.state.setMeta("wf", { keyCheckedAt: new Date(Date.now() - 2 * 3_600_000).toISOString() });
    await e.state.setMeta("em", { keyStatus: "unverified: platform unreachable" });
    const before = await keyChecks();
    await restart();
    expect(await keyChecks()).toBe(before + 2);
    for (const dir of ["wf", "em"]) {
      const meta = await e.state.meta(dir);
      expect(meta.keyStatus).toBe("ok");
      expect(Date.now() - Date.parse(meta.keyCheckedAt)).toBeLessThan(60_000);
    }
  });

  it("should check at once a key that changed, and record its own fingerprint", async () => {
    const old = (await e.state.meta("wf")).keyFingerprint;
    const before = await keyChecks();
    await restart(OTHER_KEY);
    expect(await keyChecks()).toBe(before + 2);
    const meta = await e.state.meta("wf");
    expect(meta.keyStatus).toBe("ok");
    expect(meta.keyFingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(meta.keyFingerprint).not.toBe(old);
  });

  it("should check each key once when two workers start together", async () => {
    await e.runtime!.close();
    const stale = new Date(Date.now() - 2 * 3_600_000).toISOString();
    for (const dir of ["wf", "em"]) await e.state.setMeta(dir, { keyCheckedAt: stale });
    const before = await keyChecks();
    const env = { TEST_PLATFORM_KEY: OTHER_KEY };
    const [a, b] = await Promise.all([
      startSyncRuntime(e.config, createLogger("silent"), { env, consumer: "worker-a" }),
      startSyncRuntime(e.config, createLogger("silent"), { env, consumer: "worker-b" }),
    ]);
    try {
      await Promise.all([a.keyChecksSettled(), b.keyChecksSettled()]);
      expect(await keyChecks()).toBe(before + 2);
      for (const dir of ["wf", "em"]) expect((await e.state.meta(dir)).keyCheckedAt > stale).toBe(true);
    } finally {
      await b.close();
      e.runtime = a; // closed by e.close()
    }
  });
});
