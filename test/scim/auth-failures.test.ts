import request from "supertest";
import { startScim, TOKENS, type TestScim } from "../helpers/scim-app";
import { expectScimError } from "../helpers/expect-scim";
import { waitFor } from "../helpers/sync-env";

let s: TestScim;
beforeAll(async () => { s = await startScim({ auth: { maxFailures: 5, windowSeconds: 3 }, server: { trustProxy: true, publicBaseUrl: "https://bridge.example.com" } }); });
afterAll(async () => s.close());

const from = (ip: string) => ({ "X-Forwarded-For": ip });

describe("failed-authentication limiting per client address", () => {
  it("should answer 429 with Retry-After after N failures from one address, even to a valid token, until the window ends", async () => {
    for (let i = 0; i < 5; i++) {
      expectScimError(await request(s.app).get("/scim/v2/acme/Users").set(from("203.0.113.7")).set("Authorization", `Bearer guess-${i}`), 401);
    }
    // the limiter counts in Redis after each 401 is sent: wait for the fifth count
    await waitFor(async () => Number(await s.redis.get(`${s.prefix}:authfail:203.0.113.7`)) === 5, 10000, "5 failures counted");
    const blocked = await request(s.app).get("/scim/v2/acme/Users").set(from("203.0.113.7")).set("Authorization", `Bearer ${TOKENS.acme}`);
    expectScimError(blocked, 429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThanOrEqual(1);

    // another address is not affected
    expect((await request(s.app).get("/scim/v2/acme/Users").set(from("198.51.100.9")).set(s.auth())).status).toBe(200);

    // the window ends on its own (polled; successes are not counted)
    await waitFor(async () => (await request(s.app).get("/scim/v2/acme/Users").set(from("203.0.113.7")).set(s.auth())).status === 200, 15000, "the window to end");
  });

  it("should not count successful requests", async () => {
    for (let i = 0; i < 20; i++) expect((await request(s.app).get("/scim/v2/acme/Users").set(from("192.0.2.1")).set(s.auth())).status).toBe(200);
  });
});
