/**
 * Failed-authentication throttling on the SCIM endpoint (issue 9 item 1): only failures are throttled,
 * counted per (directory, client address); a valid token always passes; with `server.trustProxy` the
 * client address is the one the trusted hops saw, so a forged X-Forwarded-For neither dodges the limit
 * nor gets another client throttled.
 */
import request from "supertest";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";
import { expectScimError } from "../helpers/expect-scim";
import { snapshotRedis } from "../helpers/redis-snapshot";
import { AuthFailureKeys } from "../../src/auth/auth-failure-keys";
import { waitFor } from "../helpers/wait-for";

const wrong = (i: number | string) => ({ Authorization: `Bearer wrong-token-${i}` });

describe("a valid token beside 1,000 wrong ones from the same address", () => {
  let s: TestScim;
  beforeAll(async () => { s = await startScim(); }); // defaults: auth.maxFailures 20, no proxy trusted
  afterAll(async () => s.close());

  it("should keep answering the valid tokens of directory A and B with 200 throughout, and the wrong ones with 401 then 429", async () => {
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 50; batch++) {
      // 20 wrong tokens for acme in flight at once, with a valid acme and a valid globex request among them
      const wrongs = Array.from({ length: 20 }, (_, i) => request(s.app).get("/scim/v2/acme/Users").set(wrong(batch * 20 + i)));
      const [a, b] = await Promise.all([
        request(s.app).get("/scim/v2/acme/Users?count=1").set(s.auth("acme")),
        request(s.app).get("/scim/v2/globex/Users?count=1").set(s.auth("globex")),
      ]);
      expect([batch, a.status, b.status]).toEqual([batch, 200, 200]);
      for (const res of await Promise.all(wrongs)) statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect([...statuses.keys()].sort()).toEqual([401, 429]);
    expect((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0)).toBe(1000);
    expect(statuses.get(401)).toBeGreaterThanOrEqual(20);
    expect(statuses.get(401)).toBeLessThan(40); // at most one batch in flight past the limit
    // once blocked, wrong tokens are refused from memory: the Redis counter stopped near the limit
    const counters = Object.entries(await snapshotRedis(s.redis, new AuthFailureKeys(s.prefix).directory("acme", "")));
    expect(counters).toHaveLength(1); // one address
    const counted = Number(counters[0][1].value);
    expect(counted).toBeGreaterThanOrEqual(20);
    expect(counted).toBeLessThan(40);
    // globex was never failed against from this address
    expectScimError(await request(s.app).get("/scim/v2/globex/Users").set(wrong("g")), 401);
  });
});

describe("failure limit per (directory, client address)", () => {
  let s: TestScim;
  beforeAll(async () => { s = await startScim({ auth: { maxFailures: 3, windowSeconds: 1 }, server: { trustProxy: 1, publicBaseUrl: "https://bridge.example.com" } }); });
  afterAll(async () => s.close());
  /** A request as the one trusted proxy forwards it: the proxy appends the address it saw. */
  const via = (client: string, forged?: string) => ({ "X-Forwarded-For": forged ? `${forged}, ${client}` : client });

  it("should answer the maxFailures-th failure with 401 and later ones with 429 + Retry-After, for that directory and address only", async () => {
    for (let i = 0; i < 3; i++) expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.1")).set(wrong(i)), 401);
    const blocked = await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.1")).set(wrong("x"));
    expectScimError(blocked, 429);
    expect(blocked.headers["retry-after"]).toBe("1");
    expect(blocked.headers["www-authenticate"]).toBeUndefined();
    expect((await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.1")).set(s.auth())).status).toBe(200);
    expect((await request(s.app).get("/scim/v2/globex/Users").set(via("198.51.100.1")).set(s.auth("globex"))).status).toBe(200);
    expectScimError(await request(s.app).get("/scim/v2/globex/Users").set(via("198.51.100.1")).set(wrong("y")), 401);
    expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.9")).set(wrong("z")), 401);
  });

  it("should count another directory's token as a failure for the directory it was sent to", async () => {
    for (let i = 0; i < 3; i++) expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.3")).set(s.auth("globex")), 401);
    expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.3")).set(s.auth("globex")), 429);
    expect((await request(s.app).get("/scim/v2/globex/Users").set(via("198.51.100.3")).set(s.auth("globex"))).status).toBe(200);
  });

  it("should treat a directory that does not exist like one that does (same answers, its own count)", async () => {
    for (const dir of ["nowhere", "acme"]) {
      for (let i = 0; i < 3; i++) expectScimError(await request(s.app).get(`/scim/v2/${dir}/Users`).set(via("198.51.100.4")).set(wrong(i)), 401);
      expectScimError(await request(s.app).get(`/scim/v2/${dir}/Users`).set(via("198.51.100.4")).set(wrong("x")), 429);
    }
    expectScimError(await request(s.app).get("/scim/v2/elsewhere/Users").set(via("198.51.100.4")).set(wrong("e")), 401);
  });

  it("should not let a forged X-Forwarded-For dodge the limit or throttle the address it names", async () => {
    for (let i = 0; i < 3; i++) expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(via("203.0.113.7", `10.9.8.${i}`)).set(wrong(i)), 401);
    // a new forged address each time: still the proxy-seen 203.0.113.7, still blocked
    expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(via("203.0.113.7", "10.9.8.200")).set(wrong("n")), 429);
    // forging the victim's address only counts against the sender
    for (let i = 0; i < 5; i++) await request(s.app).get("/scim/v2/acme/Users").set(via("203.0.113.8", "192.0.2.55")).set(wrong(i));
    expect(await s.redis.exists(new AuthFailureKeys(s.prefix).directory("acme", "192.0.2.55"))).toBe(0);
    expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(via("192.0.2.55")).set(wrong("v")), 401);
    expect((await request(s.app).get("/scim/v2/acme/Users").set(via("192.0.2.55")).set(s.auth())).status).toBe(200);
  });

  it("should answer wrong tokens with 401 again once the window has passed", async () => {
    for (let i = 0; i < 4; i++) await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.5")).set(wrong(i));
    const key = new AuthFailureKeys(s.prefix).directory("acme", "198.51.100.5");
    // wait for the event: the window's counter expires and the process stops refusing (429 until then)
    await waitFor(async () => {
      const res = await request(s.app).get("/scim/v2/acme/Users").set(via("198.51.100.5")).set(wrong("w"));
      if (res.status === 401) return true;
      expectScimError(res, 429);
      return undefined;
    }, 15000, "a wrong token answered 401 once the window passed");
    expect(await s.redis.get(key)).toBe("1"); // a fresh window, counting from the failure just sent
  });
});

describe("server.trustProxy behind a load balancer and a proxy", () => {
  it.each([[2], ["loopback, 10.0.0.0/8"], [["127.0.0.1", "::ffff:127.0.0.1", "10.0.0.2"]]])("should count the client the load balancer saw with trustProxy %j", async (trustProxy) => {
    const s = await startScim({ auth: { maxFailures: 2, windowSeconds: 30 }, server: { trustProxy, publicBaseUrl: "https://bridge.example.com" } });
    try {
      // client → load balancer (appends the client) → proxy 10.0.0.2 (appends the balancer) → bridge
      const hop = (client: string, forged: string) => ({ "X-Forwarded-For": `${forged}, ${client}, 10.0.0.2` });
      for (let i = 0; i < 2; i++) expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(hop("203.0.113.20", `6.6.6.${i}`)).set(wrong(i)), 401);
      expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(hop("203.0.113.20", "6.6.6.99")).set(wrong("x")), 429);
      expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(hop("203.0.113.21", "203.0.113.20")).set(wrong("y")), 401);
      expect((await request(s.app).get("/scim/v2/acme/Users").set(hop("203.0.113.20", "6.6.6.99")).set({ Authorization: `Bearer ${TOKENS.acme}` })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
