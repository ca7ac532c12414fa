/**
 * A reconcile's life (src/sync/admission/life.ts) is what admission.md draws, and what the admission store
 * writes: the mermaid diagram names the same states and moves as the code's lists, every sorted set the
 * store keeps per resource is a state of the diagram, and each move the store makes (real Redis) goes from
 * the state the diagram says to the state it says.
 */
import fs from "node:fs";
import path from "node:path";
import { AdmissionStore } from "../../src/sync/admission/admission-store";
import { KEPT_AS, STATES, STORED_IN, TRANSITIONS, type State } from "../../src/sync/admission/life";
import { SyncQueues } from "../../src/sync/admission/queues";
import { Revival } from "../../src/sync/admission/revival";
import { DirectoryQueueKeys, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

const DOC = path.join(__dirname, "../../src/sync/admission/admission.md");

/** The moves of the doc's mermaid stateDiagram-v2 block: "from --> to : by". */
function diagram(): Array<{ from: string; to: string; by: string }> {
  const block = /```mermaid\n(stateDiagram-v2\n[\s\S]*?)```/.exec(fs.readFileSync(DOC, "utf8"));
  expect(block).not.toBeNull();
  return block![1].split("\n").slice(1).map((l) => l.trim()).filter(Boolean).map((line) => {
    const m = /^(\S+) --> (\S+) : (.+)$/.exec(line);
    if (!m) throw new Error(`not a move of the diagram: ${line}`);
    return { from: m[1], to: m[2], by: m[3] };
  });
}

const named = (moves: Array<{ from: string; to: string }>) => new Set(moves.flatMap((t) => [t.from, t.to]).filter((s) => s !== "[*]"));
const line = (t: { from: string; to: string; by: string }) => `${t.from} --> ${t.to} : ${t.by}`;

describe("admission.md's diagram", () => {
  it("should name exactly the states and moves of life.ts", () => {
    const drawn = diagram();
    expect([...named(drawn)].sort()).toEqual(Object.keys(STATES).sort());
    expect(drawn.map(line).sort()).toEqual(TRANSITIONS.map(line).sort());
  });

  it("should name methods that exist as the movers", () => {
    const classes: Record<string, { prototype: object }> = { SyncQueues, Revival };
    const named = TRANSITIONS.flatMap((t) => [...t.by.matchAll(/\b(\w+)\.(\w+)\b/g)].map((m) => [m[1], m[2]] as const));
    expect(named.length).toBeGreaterThan(5);
    for (const [cls, method] of named) {
      expect(classes[cls]).toBeDefined();
      expect(typeof (classes[cls].prototype as Record<string, unknown>)[method]).toBe("function");
    }
  });

  it("should name every per-resource set the store keeps as a state, and only those", () => {
    const sets = Object.keys(new DirectoryQueueKeys("p", "d")).filter((k) => k !== "share");
    expect(Object.values(STORED_IN).sort()).toEqual(sets.sort());
    for (const s of Object.keys(STORED_IN)) expect(KEPT_AS[s as State]).toBe(s);
  });
});

describe("the store's moves", () => {
  let redis: RedisConnection;
  let prefix: string;
  let store: AdmissionStore;
  beforeAll(async () => {
    redis = createStoreConnection(TEST_REDIS);
    await waitReady(redis);
  });
  beforeEach(() => {
    prefix = testPrefix();
    store = new AdmissionStore(redis, prefix);
  });
  afterEach(async () => cleanPrefix(redis, prefix));
  afterAll(() => redis.disconnect());

  /** Runs `act` on member "user:a" of directory d1 and checks it makes the diagram's move `from` → `to`. */
  async function move(from: State | "[*]", to: State, act: () => Promise<unknown>): Promise<void> {
    const t = TRANSITIONS.find((x) => x.from === from && x.to === to);
    expect(t).toBeDefined();
    expect(await store.stateOf("d1", "user:a")).toBe(from === "[*]" ? "none" : KEPT_AS[from]);
    await act();
    expect(await store.stateOf("d1", "user:a")).toBe(KEPT_AS[to]);
  }

  it("should move a resource only along the diagram", async () => {
    const dispatch = () => store.dispatch("d1", 0, { stream: `${prefix}:{d1}:outbox`, group: "g", ids: [] }, [{ kind: "user", id: "a", member: "user:a" }]);
    await move("outbox", "backlog", dispatch);
    await move("backlog", "admitted", () => store.admit("d1", 1));
    await move("admitted", "backlog", () => store.requeue("d1", "user:a"));
    await move("backlog", "admitted", () => store.admit("d1", 1, 1000));
    await move("admitted", "backlog", async () => {
      const [seen] = (await store.admittedSince(["d1"], 1000)).get("d1")!;
      expect(await store.giveBack("d1", seen)).toBe(true);
    });
    await move("backlog", "admitted", () => store.admit("d1", 1));
    await move("running", "retrying", () => store.retrying("d1", "user:a"));
    await move("retrying", "running", () => store.gate("d1", "user:a"));
    await move("running", "backlog", () => store.park("d1", "user:a"));
    await move("backlog", "admitted", () => store.admit("d1", 1));
    await move("running", "waiting", () => store.admit("d1", 0, Date.now(), { op: "waiting", member: "user:a" }));
    await move("[*]", "backlog", () => store.addAndAdmit("d1", 0, ["user:a"]));
    await move("backlog", "admitted", () => store.admit("d1", 1));
    await move("running", "done", () => store.release("d1", "user:a"));
  });
});
