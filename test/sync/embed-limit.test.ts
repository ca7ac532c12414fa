/**
 * Embed target, the account-wide limit of external users ("external users per account: 10,000 (raisable
 * through support)", configurable as `embed.externalUserLimit`): at the limit a new user fails with a clear
 * status and existing users keep syncing; a warning is logged at 90% and exposed by the admin API.
 */
import { createHash } from "node:crypto";
import express from "express";
import request from "supertest";
import { adminRouter } from "../../src/admin/app";
import { createLogger } from "../../src/observability/logger";
import { ExternalUserUsage, externalUserUsageReport } from "../../src/sync/ownership/external-user-usage";
import { startSyncRuntime } from "../../src/roles/worker";
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";

const TENANT = "em-tenant";
const ADMIN_TOKEN = "admin-token-for-limit-tests";
const LIMIT = 5;

let e: SyncEnv;
let logs: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  e = await startSyncEnv({
    runtime: false,
    sim: { tenant: { name: "account", useCreatorMode: true, externalUserLimit: LIMIT } },
    em: { embed: { tenantName: TENANT, externalUserLimit: LIMIT } },
    config: { admin: { tokenHashes: [createHash("sha256").update(ADMIN_TOKEN).digest("hex")] } },
  });
  // the runtime logs into `logs`, so the 90% warning can be read back
  const logger = createLogger("warn", { write: (line: string) => { logs.push(JSON.parse(line) as Record<string, unknown>); } });
  e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY } });
});
afterAll(async () => e.close());

const admin = () => {
  const app = express();
  app.use("/admin", adminRouter({ config: e.config, redis: e.redis, queues: e.runtime!.queues }));
  return app;
};
const usage = async () => (await request(admin()).get("/admin/directories/em/external-users").set("Authorization", `Bearer ${ADMIN_TOKEN}`)).body;
const warnings = () => logs.filter((l) => /90%/.test(String(l.msg)));

async function settledUser(userName: string, extra: Record<string, unknown> = {}) {
  const res = await e.scim("em").post("/Users", userBody(userName, extra));
  expect(res.status).toBe(201);
  const st = await waitFor(async () => {
    const s = await e.state.get("em", "user", res.body.id);
    return s.status === "synced" || s.status === "failed" ? s : undefined;
  }, 10000, `${userName} settled`);
  return { id: res.body.id as string, ...st! };
}

describe("externalUserUsageReport", () => {
  it("should flag a warning from 90% of the limit and full at the limit", () => {
    expect(externalUserUsageReport(8, 10)).toEqual({ count: 8, limit: 10, ratio: 0.8, warning: false, full: false });
    expect(externalUserUsageReport(9, 10)).toEqual({ count: 9, limit: 10, ratio: 0.9, warning: true, full: false });
    expect(externalUserUsageReport(10, 10)).toMatchObject({ warning: true, full: true });
    expect(externalUserUsageReport(8999, 10000).warning).toBe(false);
    expect(externalUserUsageReport(9000, 10000).warning).toBe(true);
  });
});

describe("embed target: external-user limit", () => {
  it("should count external users below 90% without a warning", async () => {
    for (let i = 1; i <= LIMIT - 1; i++) expect((await settledUser(`limit.user${i}`)).status).toBe("synced");
    expect(warnings()).toEqual([]);
    expect(await usage()).toEqual({ count: 4, limit: LIMIT, ratio: 0.8, warning: false, full: false });
  });

  it("should log a warning and expose it when the account reaches 90% of the limit", async () => {
    expect((await settledUser(`limit.user${LIMIT}`)).status).toBe("synced");
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ level: 40, directory: "em", usage: LIMIT, limit: LIMIT });
    expect(await usage()).toEqual({ count: LIMIT, limit: LIMIT, ratio: 1, warning: true, full: true });
  });

  it("should fail a new user at the limit with a status naming the limit, and make no call for it", async () => {
    const before = (await e.simState()).counters.total.writes;
    const st = await settledUser("limit.over");
    expect(st).toMatchObject({ status: "failed" });
    expect(st.lastError).toMatch(/external user limit reached.*5 of 5/);
    expect((await e.simState()).counters.total.writes).toBe(before);
    expect((await e.simState()).externalUserCount).toBe(LIMIT);
    expect((await e.state.inStatus("em", "failed")).map((x) => x.id)).toContain(st.id);
  });

  it("should keep syncing existing users at the limit", async () => {
    const [id] = await e.users.find("em", "userName", ["limit.user2"]).then((u) => u.map((x) => x.id));
    const res = await e.scim("em").put(`/Users/${id}`, userBody("limit.user2", { displayName: "Renamed At Limit" }));
    expect(res.status).toBe(200);
    await waitFor(async () => (await e.simState()).tenants[TENANT].externalUsers["limit.user2"]?.userProfile?.displayName === "Renamed At Limit", 10000, "update at the limit");
    expect((await e.state.get("em", "user", id)).status).toBe("synced");
  });

  it("should answer 404 for the usage of a workforce directory", async () => {
    const res = await request(admin()).get("/admin/directories/wf/external-users").set("Authorization", `Bearer ${ADMIN_TOKEN}`);
    expect(res.status).toBe(404);
  });
});

describe("embed target: the platform's own limit below the configured one", () => {
  let e2: SyncEnv;
  beforeAll(async () => {
    e2 = await startSyncEnv({
      sim: { tenant: { name: "account", useCreatorMode: true, externalUserLimit: 2 } },
      em: { embed: { tenantName: TENANT, externalUserLimit: 100 } },
    });
  });
  afterAll(async () => e2.close());

  it("should fail the user with the platform's message and not count it against the limit", async () => {
    const ids: string[] = [];
    for (const n of ["plat.one", "plat.two", "plat.three"]) {
      const res = await e2.scim("em").post("/Users", userBody(n));
      ids.push(res.body.id);
      await waitFor(async () => ["synced", "failed"].includes((await e2.state.get("em", "user", res.body.id)).status ?? ""), 10000, `${n} settled`);
    }
    const third = await e2.state.get("em", "user", ids[2]);
    expect(third).toMatchObject({ status: "failed", lastError: "external user limit of 2 reached" });
    const dir = e2.config.directories.find((d) => d.id === "em")!;
    expect(await new ExternalUserUsage(e2.redis, e2.prefix).count(dir.platform.baseUrl)).toBe(2);
  });
});
