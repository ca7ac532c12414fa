/**
 * The deprovision brake's hold survives a SIGKILLed worker. Real processes (server, worker, simulator): a
 * directory whose brake allows 2 deprovisions gets 6 deactivations; 2 reach the platform, 4 are held. The
 * worker is killed and a new one started: the 4 stay held and active on the platform, whatever the new
 * worker runs again; a confirmation then applies them.
 */
import { loadConfig } from "../../src/config/load";
import { SyncQueues } from "../../src/sync/admission/queues";
import { answerBrake } from "../../src/sync/brake/brake";
import { BrakeStore } from "../../src/sync/brake/brake-store";
import { startFaultEnv, until, userBody, type FaultEnv } from "../helpers/fault-env";

const USERS = 6;
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

let e: FaultEnv;
let queues: SyncQueues;
beforeAll(async () => {
  e = await startFaultEnv({ directory: { safety: { deprovisionBrake: { max: 2, percent: 100 } } } });
  await e.startServer();
  queues = new SyncQueues(e.redis, loadConfig({ env: { REDIS_URL: e.redisUrl }, overrides: e.config }));
}, 60000);
afterAll(async () => { await queues?.close(); await e?.close(); }, 30000);

const activeOnPlatform = async () => (await e.sim.state()).scim.users.filter((u) => u.active !== false).length;
const held = async () => (await new BrakeStore(e.redis, e.prefix).counts("wf", 3600_000)).held;
const idle = async () => Object.values(await e.queue().getJobCounts("wait", "active", "delayed", "prioritized")).every((n) => n === 0);

describe("deprovision brake across a worker kill", () => {
  it("should keep the hold after a SIGKILL and a new worker, and apply it on confirm", async () => {
    const first = await e.startWorker();
    const idp = e.idp();
    const ids: string[] = [];
    for (let i = 0; i < USERS; i++) {
      const r = await idp.send("POST", "/Users", userBody(`brake.kill.${i}@example.com`));
      expect(r.status).toBe(201);
      ids.push((r.body as { id: string }).id);
    }
    await until("every user synced", 30000, async () => (await e.counts()).synced === USERS, 100);
    for (const id of ids) expect((await idp.send("PATCH", `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] })).status).toBe(200);
    await until("4 held, 2 deactivated", 60000, async () => (await held()) === 4 && (await e.counts()).deprovisioned === 2, 100);

    await first.proc.kill("SIGKILL");
    await e.startWorker();
    // whatever the new worker runs again, the held ones stay held
    for (const id of ids) await queues.enqueue("wf", "user", id);
    await until("the new worker idle", 60000, idle, 100);
    expect(await held()).toBe(4);
    expect(await activeOnPlatform()).toBe(4);

    const a = await answerBrake({ redis: e.redis, keyPrefix: e.prefix, enqueue: (d, kind, id) => queues.enqueue(d, kind, id) }, "wf", "confirm", "tester");
    expect(a).toEqual({ answered: true, count: 4 });
    await until("every user deactivated", 60000, async () => (await activeOnPlatform()) === 0, 100);
    expect(await held()).toBe(0);
    expect(await e.diff()).toEqual([]);
  }, 120000);
});
