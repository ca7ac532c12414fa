/**
 * A dispatcher that dies after reading outbox entries and before enqueueing and acking them, made
 * deterministic: with no worker running, the test itself reads every entry through the `dispatch`
 * consumer group as consumer "dead-dispatcher" and never acks. Then a worker process starts. Its read
 * loop gets nothing (the entries were delivered), so they are synced only if its sweeper claims them
 * (XAUTOCLAIM, idle ≥ max(sync.sweepIntervalMs, 10 s)) and enqueues them, which it must.
 */
import { DirectoryKeys } from "../../src/store";
import { DISPATCH_GROUP } from "../../src/sync/admission/dispatcher";
import { inPool } from "../helpers/idp-client";
import { startFaultEnv, until, userBody, type FaultEnv } from "../helpers/fault-env";

const USERS = 50;

let e: FaultEnv;
beforeAll(async () => {
  e = await startFaultEnv({ sync: { sweepIntervalMs: 500 } });
  await e.startServer();
}, 60000);
afterAll(async () => e?.close(), 30000);

describe("dispatcher killed between reading the outbox and acking", () => {
  it("should have the sweeper of a running worker re-enqueue the entries the dead one left pending, and sync them", async () => {
    const idp = e.idp();
    const ids: string[] = [];
    await inPool(Array.from({ length: USERS }, (_, i) => `orphan.${i}@example.com`), 10, async (name) => {
      const r = await idp.send("POST", "/Users", userBody(name));
      if (r.status !== 201) throw new Error(`POST ${name}: ${r.status}`);
      ids.push(String(r.body!.id));
    });
    const group = await idp.send("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Orphans", members: ids.slice(0, 10).map((value) => ({ value })) });
    expect(group.status).toBe(201);

    // the dead dispatcher: reads everything, acks nothing
    const outbox = new DirectoryKeys(e.prefix, "wf").outbox;
    await e.redis.xgroup("CREATE", outbox, DISPATCH_GROUP, "0", "MKSTREAM").catch((err: Error) => {
      if (!/BUSYGROUP/.test(err.message)) throw err;
    });
    const read = (await e.redis.xreadgroup("GROUP", DISPATCH_GROUP, "dead-dispatcher", "COUNT", 1000, "STREAMS", outbox, ">")) as Array<[string, unknown[]]>;
    expect(read[0][1]).toHaveLength(USERS + 1);

    const worker = await e.startWorker();
    // the live dispatcher's reads find only what is new: a marker written now syncs, the orphaned entries
    // do not until the sweeper claims them. Read the platform first, then the owner of the orphans: if the
    // dead dispatcher still owns all of them, none of them can have reached the platform.
    const marker = await idp.send("POST", "/Users", userBody("marker@example.com"));
    expect(marker.status).toBe(201);
    await until("the marker synced", 30000, async () => (await e.state.get("wf", "user", String(marker.body!.id))).status === "synced", 50);
    const onPlatform = (await e.sim.state()).scim.users.map((u) => u.userName);
    const [, , , owners] = (await e.redis.xpending(outbox, DISPATCH_GROUP)) as [number, string, string, Array<[string, string]>];
    if (owners?.length === 1 && owners[0][0] === "dead-dispatcher" && Number(owners[0][1]) === USERS + 1) {
      expect(onPlatform).toEqual(["marker@example.com"]);
    }

    await until("the orphaned entries synced", 30000, async () => {
      const c = await e.counts();
      return c.synced === USERS + 2;
    }, 250);
    const swept = await worker.proc.waitForLine(/sweeper re-enqueued outbox entries/, 5000);
    expect(JSON.parse(swept).moved).toBe(USERS + 1);
    const [pending] = (await e.redis.xpending(outbox, DISPATCH_GROUP)) as [number];
    expect(pending).toBe(0);
    expect(await e.redis.xlen(outbox)).toBe(0);
    // "synced" counts the group's first reconcile, which may run before its members' users are on the
    // platform; the follow-up reconcile their syncs ask for brings the members: wait for the platform
    await until("the group's members on the platform", 30000, async () => (await e.sim.state()).scim.groups.some((g) => g.members.length === 10), 250);
    const sim = await e.sim.state();
    expect(sim.scim.users).toHaveLength(USERS + 1); // and the marker
    expect(sim.scim.groups.map((g) => [g.displayName, g.members.length])).toEqual([["Orphans", 10]]);
    expect(await e.diff()).toEqual([]);
  }, 60000);
});
