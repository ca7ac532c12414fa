/**
 * Issue 4 §1: "A sweeper re-enqueues outbox marks that no job picked up (crash between store write and
 * enqueue)." A dispatcher that died after reading an outbox entry and before acking it is simulated with
 * XREADGROUP under another consumer name and no XACK; XCLAIM … IDLE dates that read a minute back.
 */
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { createUser, simUser, waitStatus } from "../helpers/sync-wait";
import { DISPATCH_GROUP } from "../../src/sync/admission/dispatcher";
import { DirectoryKeys } from "../../src/store";

let e: SyncEnv;
let outbox: string;
beforeAll(async () => {
  e = await startSyncEnv({ runtime: false, config: { sync: { sweepIntervalMs: 200 } } });
  outbox = new DirectoryKeys(e.prefix, "wf").outbox;
  await e.redis.xgroup("CREATE", outbox, DISPATCH_GROUP, "0", "MKSTREAM");
});
afterAll(async () => e.close());

/** Reads every new outbox entry as `consumer`, never acks; returns the entry ids. */
async function readAs(consumer: string): Promise<string[]> {
  const res = (await e.redis.xreadgroup("GROUP", DISPATCH_GROUP, consumer, "COUNT", 100, "STREAMS", outbox, ">")) as Array<[string, Array<[string, string[]]>]> | null;
  return (res?.[0]?.[1] ?? []).map(([id]) => id);
}

describe("the outbox sweeper", () => {
  it("should sync a store write whose outbox entry a dead dispatcher read and never acked, and leave a live one's entry alone", async () => {
    const lost = await createUser(e, "wf", "swept@example.com");
    const [lostEntry] = await readAs("dead-dispatcher");
    expect(lostEntry).toBeDefined();
    await e.redis.call("XCLAIM", outbox, DISPATCH_GROUP, "dead-dispatcher", 0, lostEntry, "IDLE", 60000); // read a minute ago

    const busy = await createUser(e, "wf", "in.flight@example.com");
    const [busyEntry] = await readAs("live-dispatcher"); // read just now by a dispatcher that is still working on it

    await e.startRuntime();
    const st = await waitStatus(e, "wf", "user", lost, "synced", 5000);
    expect(st.platformId).toBeDefined();
    // acked after the enqueue: only the live dispatcher's entry stays pending
    const pending = async () => ((await e.redis.xpending(outbox, DISPATCH_GROUP, "-", "+", 10)) as Array<[string, string]>).map(([id, c]) => `${id} ${c}`);
    await waitFor(async () => JSON.stringify(await pending()) === JSON.stringify([`${busyEntry} live-dispatcher`]), 5000, "the swept entry to be acked");

    // three more sweeps, counted, had their chance to take the live dispatcher's entry
    const dispatcher = e.runtime!.dispatcher;
    const original = dispatcher.sweep.bind(dispatcher);
    let sweeps = 0;
    const spy = jest.spyOn(dispatcher, "sweep").mockImplementation(async () => {
      const moved = await original();
      sweeps++;
      return moved;
    });
    await waitFor(() => sweeps >= 3, 10000, "three more sweeps");
    spy.mockRestore();
    expect((await e.state.get("wf", "user", busy)).status).toBeUndefined(); // still the live dispatcher's
    expect(await simUser(e, "in.flight@example.com")).toBeUndefined();
    expect(await e.redis.xlen(outbox)).toBe(1); // the swept entry was acked and deleted
  });
});
