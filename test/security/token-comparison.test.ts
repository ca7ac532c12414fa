/**
 * Constant-time token comparison, asserted by design rather than by timing: the presented token is
 * hashed with SHA-256 and compared with crypto.timingSafeEqual against every configured hash of the
 * directory (or the admin list), with no early exit and one comparison even when the list is empty, so
 * neither where a match sits nor whether the directory exists changes the work done.
 */
import crypto from "node:crypto";
import express from "express";
import request from "supertest";
import { directoryAuth } from "../../src/auth/scim-auth";
import { hashToken, tokenMatches } from "../../src/auth/token";
import { AdminSessions } from "../../src/auth/admin-session";
import { AuthFailureLimiter } from "../../src/auth/auth-failures";
import { AuthFailureKeys } from "../../src/auth/auth-failure-keys";
import { configSchema } from "../../src/config/schema";
import { DirectoryRegistry } from "../../src/directories/registry";

const sha = (t: string) => crypto.createHash("sha256").update(t, "utf8").digest();
const tokens = ["first-token", "second-token", "third-token"];
const hashes = tokens.map(sha);

let spy: jest.SpyInstance;
beforeEach(() => { spy = jest.spyOn(crypto, "timingSafeEqual"); });
afterEach(() => spy.mockRestore());

/** The (configured hash, presented digest) pairs timingSafeEqual saw. */
function comparisons(): Array<[string, string]> {
  return spy.mock.calls.map(([a, b]) => [Buffer.from(a as Uint8Array).toString("hex"), Buffer.from(b as Uint8Array).toString("hex")]);
}

describe("tokenMatches", () => {
  it.each([["the first", "first-token", true], ["the last", "third-token", true], ["no", "wrong-token", false]])(
    "should compare with every configured hash when %s hash matches", (_where, token, expected) => {
      expect(tokenMatches(token, hashes)).toBe(expected);
      const seen = comparisons();
      expect(seen.map(([h]) => h)).toEqual(hashes.map((h) => h.toString("hex"))); // all three, in order, none skipped
      for (const [, digest] of seen) expect(digest).toBe(sha(token).toString("hex")); // the token's SHA-256, never the token
    },
  );

  it("should compare 32-byte digests only, so timingSafeEqual never throws or returns early on length", () => {
    tokenMatches("x".repeat(10_000), hashes);
    tokenMatches("", hashes);
    for (const [a, b] of spy.mock.calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
  });

  it("should still do one comparison when there is no hash (unknown directory)", () => {
    expect(tokenMatches("anything", [])).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("should refuse a missing token even if a configured hash is the hash of the empty string", () => {
    expect(tokenMatches(undefined, [sha("")])).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(tokenMatches("", [sha("")])).toBe(true);
  });

  it("should agree with hashToken, the format config holds", () => {
    expect(Buffer.from(hashToken("first-token"), "hex").equals(hashes[0])).toBe(true);
  });
});

describe("directoryAuth", () => {
  const app = express();
  // no Redis: the failure limiter lets everything through, so only the comparisons are observed
  const platform = { baseUrl: "https://p.example.com/api", deploymentId: 1, apiKeyEnv: "K" };
  const config = configSchema.parse({ directories: [
    { id: "acme", target: "workforce", platform, tokenHashes: hashes.map((h) => h.toString("hex")) },
  ] });
  // a second directory with one of the same hashes: the config file refuses that, a test may not
  config.directories.push({ ...config.directories[0], id: "solo", tokenHashes: [hashes[0].toString("hex")] });
  app.use("/scim/v2/:directoryId", directoryAuth(DirectoryRegistry.fromConfig(config), new AuthFailureLimiter(undefined, 5, 60), new AuthFailureKeys("p")), (_req, res) => { res.send("ok"); });

  it("should do the same comparisons for a wrong token as for the right one, and one for an unknown directory", async () => {
    for (const [dir, token, status, calls] of [["acme", "first-token", 200, 3], ["acme", "wrong-token", 401, 3], ["acme", "third-token", 200, 3], ["solo", "first-token", 200, 1], ["nowhere", "first-token", 401, 1]] as const) {
      spy.mockClear();
      const res = await request(app).get(`/scim/v2/${dir}/Users`).set("Authorization", `Bearer ${token}`);
      expect([dir, token, res.status, spy.mock.calls.length]).toEqual([dir, token, status, calls]);
    }
  });
});

describe("AdminSessions.tokenValid", () => {
  it("should compare with every admin hash", () => {
    const sessions = new AdminSessions({} as never, "p", hashes.map((h) => h.toString("hex")));
    expect(sessions.tokenValid("first-token")).toBe(true);
    expect(sessions.tokenValid("nope")).toBe(false);
    expect(spy).toHaveBeenCalledTimes(6);
    spy.mockClear();
    expect(new AdminSessions({} as never, "p", []).tokenValid("first-token")).toBe(false); // no admin token configured
    expect(spy).toHaveBeenCalledTimes(1);
  });
});
