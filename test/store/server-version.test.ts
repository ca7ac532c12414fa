/** The server version a worker reads once, and the comparison that decides whether BullMQ's own check is skipped. */
import { createQueueConnection, serverVersion, versionAtLeast, waitReady } from "../../src/store";
import { TEST_REDIS } from "../helpers/redis";

describe("versionAtLeast", () => {
  it.each([
    ["7.0.15", "7.0.8", true], ["7.0.8", "7.0.8", true], ["7.0.7", "7.0.8", false],
    ["6.2.14", "7.0.8", false], ["7.2", "7.0.8", true], ["10.0.0", "7.0.8", true], ["7", "7.0.0", true],
  ])("should say %s ≥ %s is %s (numbers, not text)", (a, b, expected) => {
    expect(versionAtLeast(a, b)).toBe(expected);
  });
});

describe("serverVersion", () => {
  it("should read the version the server reports in INFO server", async () => {
    const redis = createQueueConnection(TEST_REDIS, "server-version-test");
    try {
      await waitReady(redis);
      const info = await redis.info("server");
      const v = await serverVersion(redis);
      expect(v).toMatch(/^\d+\.\d+\.\d+/);
      expect(info).toContain(`redis_version:${v}\r\n`);
    } finally {
      redis.disconnect();
    }
  });
});
