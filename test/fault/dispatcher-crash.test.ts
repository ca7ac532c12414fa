/**
 * A dispatcher that dies after reading outbox entries and before enqueueing and acking them, made
 * deterministic: with no worker running, the test itself reads every entry through the `dispatch`
 * consumer group as consumer "dead-dispatcher" and never acks. Then a worker process starts. Its read
 * loop gets nothing (the entries were delivered), so they are synced only if its sweeper claims them
 * (XAUTOCLAIM, idle ≥ max(sync.sweepIntervalMs, 10 s)) and enqueues them, which it must.
 */
import { DirectoryKeys } from "../../src/store";
import { DISPATCH_GROUP } from "../../src/sync/dispatcher";
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
    await new Promise((r) => setTimeout(r, 3000));
    // the live dispatcher's reads find nothing new: without the sweeper nothing would ever sync
    expect((await e.sim.state()).scim.users).toHaveLength(0);

    await until("the orphaned entries synced", 30000, async () => {
      const c = await e.counts();
      return c.synced === USERS + 1;
    }, 250);
    const swept = await worker.proc.waitForLine(/sweeper re-enqueued outbox entries/, 5000);
    expect(JSON.parse(swept).moved).toBe(USERS + 1);
    const [pending] = (await e.redis.xpending(outbox, DISPATCH_GROUP)) as [number];
    expect(pending).toBe(0);
    expect(await e.redis.xlen(outbox)).toBe(0);
    const sim = await e.sim.state();
    expect(sim.scim.users).toHaveLength(USERS);
    expect(sim.scim.groups.map((g) => [g.displayName, g.members.length])).toEqual([["Orphans", 10]]);
    expect(await e.diff()).toEqual([]);
  }, 60000);
});
