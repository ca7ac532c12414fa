/**
 * The SCIM server SIGKILLed mid-push. The store writes a resource and its outbox entry in one Lua script,
 * and the dispatcher (in the worker) does the enqueue, so there is no window between "written" and "will
 * sync" in the server at all. The test shows both consequences:
 * - every write the server answered 2xx, and every write it made but could not answer (in flight at the
 *   kill), syncs while the server is still down;
 * - after a restart on the same port, the IdP retries what got no answer (a retried create that meets
 *   its own earlier write gets 409 and is looked up), and the platform ends equal to the bridge.
 * The other half, a dispatcher killed after reading outbox entries and before acking them, is
 * dispatcher-crash.test.ts.
 */
import { freePort } from "../helpers/free-port";
import { inPool } from "../helpers/idp-client";
import { startFaultEnv, until, userBody, type FaultEnv } from "../helpers/fault-env";
import type { BridgeProcess } from "../helpers/processes";

const USERS = 300;
const KILL_AT = 100;

let e: FaultEnv;
let port: number;
let server: BridgeProcess;
beforeAll(async () => {
  e = await startFaultEnv({ faults: { latency: { fixedMs: 5, jitterMs: 5 } } });
  port = await freePort();
  server = await e.startServer(port);
  await e.startWorker();
}, 60000);
afterAll(async () => e?.close(), 30000);

describe("server SIGKILLed mid-push", () => {
  it("should sync every write it made, answered or not, and everything the IdP retries after a restart", async () => {
    const idp = e.idp();
    const names = Array.from({ length: USERS }, (_, i) => `killed.server.${String(i).padStart(3, "0")}@example.com`);
    const accepted = new Set<string>();
    const unanswered: string[] = [];
    /** Why the first unanswered requests before the kill got no answer (for the failure message). */
    const early: string[] = [];
    let killed = false;
    await inPool(names, 10, async (name, i) => {
      if (i === KILL_AT) { killed = true; await server.proc.kill("SIGKILL"); }
      const r = await idp.send("POST", "/Users", userBody(name));
      if (r.status === 201) accepted.add(name);
      else if (r.status === 0) { unanswered.push(name); if (!killed && early.length < 5) early.push(`${name}: ${r.error}`); }
      else throw new Error(`POST ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    });
    // a server that answered nothing before its kill: say why (one run in several dozen here, not reproduced)
    if (accepted.size < KILL_AT - 10) throw new Error(`${accepted.size} answered before the kill; first failures: ${early.join("; ")}\n${e.set.report()}`);
    expect(unanswered.length).toBe(USERS - accepted.size);

    // with the server down: everything it wrote syncs (the 2xx'd ones and any whose answer was lost)
    const written = await e.users.count("wf");
    expect(written).toBeGreaterThanOrEqual(accepted.size);
    await until("every write of the killed server synced", 30000, async () => (await e.counts()).synced === written, 250);
    const onPlatform = new Set((await e.sim.state()).scim.users.map((u) => u.userName));
    expect([...accepted].filter((n) => !onPlatform.has(n))).toEqual([]);
    expect(onPlatform.size).toBe(written);

    // restart on the same port; the IdP retries what got no answer
    await e.startServer(port);
    await inPool(unanswered, 10, async (name) => {
      const { id, statuses } = await idp.createUser(userBody(name), 30000, true);
      if (!id) throw new Error(`retry of ${name} failed: ${statuses.join(",")}`);
    });
    await until("every user synced after the restart", 30000, async () => (await e.counts()).synced === USERS, 250);
    expect(await e.users.count("wf")).toBe(USERS);
    expect(await e.counts()).toEqual({ pending: 0, synced: USERS, failed: 0, deprovisioned: 0 });
    const sim = await e.sim.state();
    expect(new Set(sim.scim.users.map((u) => u.userName))).toEqual(new Set(names));
    expect(sim.scim.users).toHaveLength(USERS);
    expect(await e.diff()).toEqual([]);
  }, 90000);
});
