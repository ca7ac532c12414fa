/**
 * BridgeCluster (src/store/bridge-cluster.ts) routes a keyed command straight to its slot's master through
 * ioredis internals that are not public API: the Cluster's `connectionPool.getInstanceByKey`, its `slots`
 * table, a Command's cached `slot` (read by `getSlot`) and its `reject` (set per command by `initPromise`),
 * and `Cluster#sendCommand(command, stream, node)`. `npm run bench:cluster-client` measures what that saves.
 * These tests fail when an ioredis release changes any of them, before a cluster deployment finds out; a
 * new ioredis version fails the first test until someone has re-read those internals and the bench.
 * No Redis is needed: the Cluster is built with `lazyConnect` and never connects.
 */
import fs from "node:fs";
import path from "node:path";
import { Cluster, Command } from "ioredis";

/** The ioredis release whose internals BridgeCluster was checked against. */
const CHECKED_IOREDIS = "6.0.0";

describe("the ioredis internals BridgeCluster relies on", () => {
  it("should be those of the release it was checked against", () => {
    const installed = JSON.parse(fs.readFileSync(path.join(require.resolve("ioredis"), "../../package.json"), "utf8")).version;
    expect(installed).toBe(CHECKED_IOREDIS);
  });

  it("should give a Cluster a connection pool looked up by node key, and a slots table", () => {
    const c = new Cluster([{ host: "127.0.0.1", port: 1 }], { lazyConnect: true });
    try {
      const pool = (c as unknown as { connectionPool?: { getInstanceByKey?: unknown } }).connectionPool;
      expect(typeof pool?.getInstanceByKey).toBe("function");
      expect(Array.isArray(c.slots)).toBe(true);
      // sendCommand(command, stream, node): the fast path passes through when stream or node is given
      expect(Cluster.prototype.sendCommand.length).toBe(3);
    } finally {
      c.disconnect();
    }
  });

  it("should route a Command by the slot cached on it, and settle it through its own reject", async () => {
    const cmd = new Command("get", ["some-key"]);
    (cmd as unknown as { slot: number }).slot = 1234;
    expect(cmd.getSlot()).toBe(1234);
    expect(Object.prototype.hasOwnProperty.call(cmd, "reject")).toBe(true);
    const replaced = cmd.reject;
    replaced(new Error("boom"));
    await expect(cmd.promise).rejects.toThrow("boom");
  });
});
