/**
 * A drain round of the reverse-index queue (src/store/commands/includes/drainMemberOf.lua) against real
 * Redis: it stops after its budget of member changes, not after a number of entries, so one round of
 * large PATCHes' entries never holds Redis (every other client of it) for long.
 */
import { createStoreConnection, DirectoryKeys, waitReady, type RedisConnection } from "../../src/store";
import { defineStoreCommands, type StoreCommands } from "../../src/store/scripts";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection & StoreCommands;
let k: DirectoryKeys;
let prefix: string;

beforeAll(async () => {
  redis = defineStoreCommands(createStoreConnection(TEST_REDIS));
  await waitReady(redis);
});
beforeEach(() => {
  prefix = testPrefix();
  k = new DirectoryKeys(prefix, "d1");
});
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

/** Queues one group write's member changes, as writeGroup does. */
async function queued(group: string, added: string[]): Promise<void> {
  await redis.xadd(`${k.prefix}mgq`, "*", "g", group, "a", added.join("\n"), "r", "");
}
const members = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`);

describe("a drain round", () => {
  it("should stop once its budget of member changes is applied, and leave the rest queued in order", async () => {
    for (const g of ["g1", "g2", "g3"]) await queued(g, members(`${g}-u`, 300));
    expect(Number(await redis.drainMemberOf(`${k.prefix}mgq`, k.prefix, "500"))).toBe(1);
    expect(await redis.sismember(k.memberOf("g2-u299"), "g2")).toBe(1);
    expect(await redis.exists(k.memberOf("g3-u0"))).toBe(0);
    expect(Number(await redis.drainMemberOf(`${k.prefix}mgq`, k.prefix, "500"))).toBe(0);
    expect(await redis.sismember(k.memberOf("g3-u299"), "g3")).toBe(1);
  });

  it("should apply one whole entry even when it alone is over the budget", async () => {
    await queued("g1", members("u", 50));
    await queued("g2", members("v", 1));
    expect(Number(await redis.drainMemberOf(`${k.prefix}mgq`, k.prefix, "10"))).toBe(1);
    expect(await redis.sismember(k.memberOf("u49"), "g1")).toBe(1);
    expect(await redis.exists(k.memberOf("v0"))).toBe(0);
  });

  it("should apply many small entries in one round", async () => {
    for (let i = 0; i < 20; i++) await queued(`g${i}`, [`u${i}`]);
    expect(Number(await redis.drainMemberOf(`${k.prefix}mgq`, k.prefix, "1024"))).toBe(0);
    expect(await redis.sismember(k.memberOf("u19"), "g19")).toBe(1);
  });
});
