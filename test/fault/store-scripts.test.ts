/**
 * The store's Lua scripts on the request-serving connection, which auto-pipelines (src/store/connection.ts,
 * src/store/scripts.ts), against a private redis-server whose command counts and script cache are its own:
 * - concurrent requests' scripts go as EVALSHA, batch after batch: a script's text is sent once per
 *   connection (ioredis sends EVAL the first time a script meets a socket), not with every batch;
 * - after a restart (the script cache is lost) every script runs again on the reconnected connection.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { UserStore, closeConnection, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { userBody } from "../../src/scim/resources/input";
import { ProcessSet, RedisServerProcess } from "../helpers/processes";

const set = new ProcessSet();
let server: RedisServerProcess;
let redis: RedisConnection;
let admin: Redis;

beforeAll(async () => {
  server = await RedisServerProcess.start(set);
  redis = createStoreConnection(server.url);
  await waitReady(redis);
  admin = new Redis(server.url);
}, 30000);
afterAll(async () => {
  await closeConnection(redis).catch(() => undefined);
  admin?.disconnect();
  await set.killAll();
});

/** Calls of each command the private server has run, from INFO commandstats. */
async function calls(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await admin.info("commandstats")).matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

const body = (i: number) => userBody({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: `script.user${i}@example.com`, active: true }).body;

describe("store scripts on an auto-pipelined connection", () => {
  const users = () => new UserStore(redis, "t:");

  it("should send a script's text once, not with every batch of concurrent calls", async () => {
    // each script's first call on the connection sends its text (EVAL)
    const first = randomUUID();
    await users().write("d", first, body(999), "create");
    await users().find("d", "id", [first]);
    const before = await calls();
    const ids: string[] = [first];
    for (let batch = 0; batch < 8; batch++) {
      const mine = Array.from({ length: 10 }, () => randomUUID());
      ids.push(...mine);
      await Promise.all(mine.map((id, i) => users().write("d", id, body(batch * 10 + i), "create")));
      const found = await Promise.all(mine.map((id) => users().find("d", "id", [id])));
      expect(found.map((f) => f[0]?.id)).toEqual(mine);
    }
    const after = await calls();
    const evals = (after.eval ?? 0) - (before.eval ?? 0);
    const evalshas = (after.evalsha ?? 0) - (before.evalsha ?? 0);
    // loaded: no script's text is sent again, whatever the batches
    expect(evals).toBe(0);
    expect(evalshas).toBeGreaterThanOrEqual(160);
    expect(await users().count("d")).toBe(ids.length);
  });

  it("should run its scripts again after Redis restarted and lost them", async () => {
    const id = randomUUID();
    await users().write("d", id, body(1000), "create");
    const closed = new Promise((resolve) => redis.once("close", resolve));
    await server.kill("SIGKILL");
    await closed;
    await server.restart();
    await waitReady(redis, 15000);
    // the AOF kept the data; the restarted server has no script until the connection sends it again
    const reply = await users().find("d", "id", [id]);
    expect(reply.map((u) => u.id)).toEqual([id]);
    const second = randomUUID();
    await users().write("d", second, body(1001), "create");
    expect((await users().find("d", "id", [second])).map((u) => u.id)).toEqual([second]);
  }, 30000);
});
