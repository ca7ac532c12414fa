/**
 * The dispatcher on the cluster reads only the outboxes that have news (src/store/outbox-signal.ts): the
 * store names a directory in `<kp>:outbox:changed` after a write, and the dispatcher reads that outbox on its
 * next round. Every `fullPollMs` it reads every outbox, which finds an entry whose signal was lost.
 */
import { createLogger } from "../../src/observability/logger";
import { startSyncRuntime } from "../../src/roles/worker";
import { DirectoryKeys, outboxSignalKey } from "../../src/store";
import { PLATFORM_KEY, startSyncEnv, waitFor } from "../helpers/sync-env";
import { createUser, waitStatus } from "../helpers/sync-wait";

const logger = createLogger("silent");

describe("the outbox signal on the cluster", () => {
  it("should sync a SCIM write through its signal when no full poll comes for an hour", async () => {
    const e = await startSyncEnv({ runtime: false });
    try {
      e.runtime = await startSyncRuntime(e.config, logger, { env: { TEST_PLATFORM_KEY: PLATFORM_KEY }, outboxFullPollMs: 3_600_000 });
      const uid = await createUser(e, "wf", "signalled@example.com");
      await waitStatus(e, "wf", "user", uid, "synced");
      expect(await e.redis.scard(outboxSignalKey(e.config.redis.keyPrefix))).toBe(0); // taken by the dispatcher
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
});
