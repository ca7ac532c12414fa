/**
 * A missing platform key variable pauses nothing it should not: a worker started without a directory's key
 * variable takes none of its jobs and says so (log, readiness `notServed`), and writes no shared pause; a
 * second worker that has the key syncs the directory. Runtime directory creation refuses what `config check` refuses: a key variable no
 * running worker holds, and plain http:// to a non-loopback host without allowPlainHttp.
 * Two sync runtimes on one Redis, the simulator over HTTP.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminConfig } from "../helpers/resync";
import { PLATFORM_KEY, startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { startSyncRuntime, type SyncRuntime } from "../../src/roles/worker";
import { createLogger } from "../../src/observability/logger";
import { RoleProbe, readiness } from "../../src/observability/health";
import { adminRouter } from "../../src/admin/app";
import express from "express";

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
let e: SyncEnv;
let keyless: SyncRuntime;
/** The admin API on the keyless runtime's queues (the server role needs no platform key). */
let admin: express.Express;

beforeAll(async () => {
  e = await startSyncEnv({ config: adminConfig, runtime: false });
  keyless = await startSyncRuntime(e.config, createLogger("silent"), { env: { SOME_OTHER_VAR: "1" }, consumer: "keyless" });
  admin = express();
  admin.use("/admin", adminRouter({ config: e.config, redis: e.redis, queues: keyless.queues, registry: keyless.registry }));
});
afterAll(async () => { await keyless.close(); await e.close(); });

const acme = (over: Record<string, unknown> = {}) => ({ id: "acme", target: "workforce", platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY", ...over } });

describe("a worker without the key variable", () => {
  it("should not serve the directory, say so in its readiness, and write no pause", async () => {
    expect([...keyless.notServed().keys()].sort()).toEqual(["em", "wf"]);
    expect(keyless.notServed().get("wf")).toContain("TEST_PLATFORM_KEY");
    const probe = new RoleProbe("worker");
    probe.attachWorkers(() => keyless.canTakeJobs(), () => keyless.notServed().size);
    expect(await readiness(e, probe)).toEqual({ status: "ready", checks: { redis: "ok", jobs: "ok", notServed: 2 } });
    const meta = await e.state.meta("wf");
    expect(meta.paused).toBeUndefined();
    expect(meta.keyStatus).toBeUndefined();
  });

  it("should refuse a runtime directory whose key variable no running worker holds, or plain http to another host", async () => {
    const noKey = await request(admin).post("/admin/directories").set(auth).send(acme());
    expect(noKey.status).toBe(400);
    expect(JSON.stringify(noKey.body)).toContain("platform.apiKeyEnv: no running worker has environment variable TEST_PLATFORM_KEY set");
    const plain = await request(admin).post("/admin/directories").set(auth).send(acme({ apiKeyEnv: "SOME_OTHER_VAR", baseUrl: "http://platform.example.com/api" }));
    expect(plain.status).toBe(400);
    expect(JSON.stringify(plain.body)).toContain("platform.baseUrl: Only HTTPS is accepted");
    expect(e.runtime).toBeUndefined();
    expect((await request(admin).get("/admin/directories/acme").set(auth)).status).toBe(404);
  });

  it("should leave the directory's work to a worker that has the key, which syncs it", async () => {
    const alice = await e.scim("wf").post("/Users", userBody("keyless.alice@example.com"));
    expect(alice.status).toBe(201);
    const carol = await e.scim("em").post("/Users", userBody("keyless.carol"));
    expect(carol.status).toBe(201);
    // nothing reached the platform: the only worker running cannot (its directories' jobs are not taken)
    expect((await e.state.get("wf", "user", alice.body.id)).status).not.toBe("synced");
    expect((await e.simState()).scim.users.map((u) => u.userName)).not.toContain("keyless.alice@example.com");

    const keyed = await e.startRuntime({ TEST_PLATFORM_KEY: PLATFORM_KEY });
    expect(keyed.notServed().size).toBe(0);
    await waitFor(async () => (await e.state.get("wf", "user", alice.body.id)).status === "synced", 15000, "alice synced by the keyed worker");
    await waitFor(async () => (await e.state.get("em", "user", carol.body.id)).status === "synced", 15000, "carol synced by the keyed worker");
    expect((await e.simState()).scim.users.map((u) => u.userName)).toContain("keyless.alice@example.com");
  });

  it("should accept the runtime directory once a worker holding the variable runs", async () => {
    const made = await request(admin).post("/admin/directories").set(auth).send(acme());
    expect(made.status).toBe(201);
    const local = await request(admin).post("/admin/directories").set(auth).send({ ...acme({ apiKeyEnv: "TEST_PLATFORM_KEY" }), id: "acme-2" });
    expect(local.status).toBe(201); // plain http to loopback (the simulator) is accepted
  });
});
