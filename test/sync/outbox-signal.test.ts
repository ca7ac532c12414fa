/**
 * The dispatcher reads only the outboxes that have news (src/store/outbox-signal.ts), on single Redis and
 * on the cluster (this suite is in the cluster project too): the store names a directory in
 * `<kp>:outbox:news` after a write, and the dispatcher reads that outbox on its next round. Every
 * `fullPollMs` it reads every outbox, which finds an entry whose signal was lost. On single Redis no read
 * names more than one outbox (one read naming all of them held Redis for every tenant at once).
 */
import { Redis } from "ioredis";
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";
import { DirectoryKeys, outboxSignalKey } from "../../src/store";
import { PLATFORM_KEY, startSyncEnv, waitFor } from "../helpers/sync-env";
import { createUser, waitStatus } from "../helpers/sync-wait";
import { TEST_CLUSTER_NODES } from "../helpers/redis";

const logger = createLogger("silent");

describe("the outbox signal", () => {
  it("should sync a SCIM write through its signal when no full poll comes for an hour", async () => {
    const e = await startSyncEnv({ runtime: false });
    try {
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, outboxFullPollMs: 3_600_000 });
      const uid = await createUser(e, "wf", "signalled@example.com");
      await waitStatus(e, "wf", "user", uid, "synced");
      expect(await e.redis.zcard(outboxSignalKey(e.config.redis.keyPrefix))).toBe(0); // taken by the dispatcher
    } finally {
      await e.close();
    }
  }, 60000);

  it("should read an outbox entry that came without a signal at the next full poll", async () => {
    const e = await startSyncEnv({ runtime: false });
    try {
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, outboxFullPollMs: 1000 });
      const uid = await createUser(e, "wf", "unsignalled@example.com");
      await waitStatus(e, "wf", "user", uid, "synced"); // the dispatcher's first (full) round is behind us
      const outbox = new DirectoryKeys(e.config.redis.keyPrefix, "wf").outbox;
      await e.redis.xadd(outbox, "*", "k", "user", "id", uid, "v", "1"); // an entry whose signal was lost
      await waitFor(async () => (await e.redis.xlen(outbox)) === 0, 15000, "the unsignalled entry to be read and deleted");
    } finally {
      await e.close();
    }
  }, 60000);

  // a cluster refuses such a command anyway (CROSSSLOT). The reads are watched on the client: ioredis's
  // MONITOR connection fails at random under load ("Command queue state error" when monitor lines arrive
  // with the OK of MONITOR itself)
  (TEST_CLUSTER_NODES.length ? it.skip : it)("should name one outbox per read on single Redis, full polls included", async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `d${i}`);
    const e = await startSyncEnv({ runtime: false, directories: ids.map((id) => ({ id })) });
    const named: number[] = [];
    const original = Redis.prototype.xreadgroup as (...args: unknown[]) => unknown;
    const reads = jest.spyOn(Redis.prototype, "xreadgroup").mockImplementation(function (this: Redis, ...args: unknown[]) {
      const at = args.findIndex((a) => String(a).toUpperCase() === "STREAMS");
      const keys = args.slice(at + 1, at + 1 + (args.length - at - 1) / 2);
      if (keys.some((k) => String(k).startsWith(`${e.prefix}:`))) named.push(keys.length);
      return original.apply(this, args);
    } as never);
    try {
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, outboxFullPollMs: 200 });
      const uids = await Promise.all(["d1", "d7", "d11"].map((d, i) => createUser(e, d, `one.read.${i}@example.com`)));
      await Promise.all(["d1", "d7", "d11"].map((d, i) => waitStatus(e, d, "user", uids[i], "synced")));
      // past a few full polls (every 200 ms), each of which reads all 12 outboxes
      await waitFor(() => named.reduce((n, k) => n + k, 0) >= 3 * ids.length, 15000, "three full polls");
      expect(Math.max(...named)).toBe(1);
    } finally {
      reads.mockRestore();
      await e.close();
    }
  }, 60000);
});
