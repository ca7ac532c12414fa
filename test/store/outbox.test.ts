import { GroupStore, UserStore, createStoreConnection, waitReady, type RedisConnection } from "../../src/store";
import { cleanPrefix, testPrefix, TEST_REDIS } from "../helpers/redis";

let redis: RedisConnection;
let prefix: string;
let users: UserStore;
let groups: GroupStore;

beforeAll(async () => {
  redis = createStoreConnection(TEST_REDIS);
  await waitReady(redis);
});
beforeEach(() => {
  prefix = testPrefix();
  users = new UserStore(redis, prefix);
  groups = new GroupStore(redis, prefix);
});
afterEach(async () => cleanPrefix(redis, prefix));
afterAll(() => redis.disconnect());

async function outbox(dir: string) {
  const entries = await redis.xrange(users.keys(dir).outbox, "-", "+");
  return entries.map(([, f]) => Object.fromEntries(Array.from({ length: f.length / 2 }, (_, i) => [f[2 * i], f[2 * i + 1]])));
}

describe("the outbox", () => {
  it("should get one entry per accepted change, in the same atomic step, and none for a no-op", async () => {
    await users.write("d1", "u1", { userName: "a" }, "create");
    await users.write("d1", "u1", { userName: "a", title: "t" }, "update");
    const noop = await users.write("d1", "u1", { userName: "a", title: "t" }, "update");
    expect(noop).toMatchObject({ changed: false, version: 2 });
    await users.delete("d1", "u1");
    expect(await outbox("d1")).toEqual([
      { k: "user", id: "u1", v: "1" }, { k: "user", id: "u1", v: "2" }, { k: "user", id: "u1", v: "3", op: "delete" },
    ]);
  });

  it("should keep each directory's data and outbox apart, under its own hash tag", async () => {
    await users.write("d1", "u1", { userName: "same" }, "create");
    await users.write("d2", "u1", { userName: "same" }, "create");
    expect(users.keys("d1").outbox).toBe(`${prefix}:{d1}:outbox`);
    expect(await outbox("d1")).toHaveLength(1);
    expect(await outbox("d2")).toHaveLength(1);
    expect((await users.find("d2", "userName", ["SAME"]))[0].id).toBe("u1");
  });

  it("should record group member changes and the groups a deleted user leaves", async () => {
    await users.write("d1", "u1", { userName: "a" }, "create");
    await groups.write("d1", "g1", { mode: "create", body: { displayName: "G" }, memberOps: [{ op: "add", members: [{ value: "u1" }] }] });
    await users.delete("d1", "u1");
    const entries = await outbox("d1");
    expect(entries.slice(1)).toEqual([
      { k: "group", id: "g1", v: "1" }, { k: "group", id: "g1", v: "2" }, { k: "user", id: "u1", v: "2", op: "delete" },
    ]);
    expect(await groups.memberValues("d1", "g1")).toEqual([]);
  });

  it("should bump meta.version and lastModified but keep created on update", async () => {
    const a = await users.write("d1", "u1", { userName: "a" }, "create");
    // lastModified is the writer's clock in ms: write again once it has moved past the first write's
    while (Date.now() <= Date.parse(a.lastModified)) await new Promise((r) => setImmediate(r));
    const b = await users.write("d1", "u1", { userName: "b" }, "update");
    expect(b.version).toBe(a.version + 1);
    expect(b.created).toBe(a.created);
    expect(b.lastModified > a.lastModified).toBe(true);
    expect(await users.find("d1", "userName", ["a"])).toEqual([]);
  });
});
