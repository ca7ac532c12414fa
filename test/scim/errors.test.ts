import net from "node:net";
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";
import { createScimApp } from "../../src/scim/app";
import { GroupStore, UserStore, createStoreConnection, type RedisConnection } from "../../src/store";
import { createLogger } from "../../src/observability/logger";

let s: TestScim;
beforeAll(async () => { s = await startScim({ server: { bodyLimitBytes: 64 * 1024, publicBaseUrl: "https://bridge.example.com", retryAfterSeconds: 7 } }); });
afterAll(async () => s.close());
const U = "/scim/v2/acme/Users";

describe("error responses", () => {
  it("should answer invalid JSON with 400 invalidSyntax and store nothing", async () => {
    const res = await request(s.app).post(U).set(s.auth()).set("Content-Type", "application/scim+json").send('{"userName": "x",');
    expectScimError(res, 400, "invalidSyntax");
    expect(await s.users.count("acme")).toBe(0);
  });

  it("should answer a body over the configured limit with 413", async () => {
    const res = await request(s.app).post(U).set(s.auth()).send(userBody("big", { title: "x".repeat(80 * 1024) }));
    expectScimError(res, 413);
  });

  it("should answer a non-JSON content type on a write with 415", async () => {
    expectScimError(await request(s.app).post(U).set(s.auth()).set("Content-Type", "text/plain").send("userName=x"), 415);
  });

  it("should answer unknown endpoints and unsupported methods with SCIM bodies", async () => {
    expectScimError(await request(s.app).get("/scim/v2/acme/Widgets").set(s.auth()), 404);
    expectScimError(await request(s.app).get("/nothing/here"), 404);
    expectScimError(await request(s.app).post(`${U}/some-id`).set(s.auth()).send({}), 405);
  });

  it("should answer a PATCH with an unknown op, or without Operations' objects, with 400", async () => {
    const id = (await request(s.app).post(U).set(s.auth()).send(userBody("patch.errors"))).body.id;
    const send = (body: unknown) => request(s.app).patch(`${U}/${id}`).set(s.auth()).send(body as object);
    expectScimError(await send({ Operations: [{ op: "frobnicate", path: "title", value: "x" }] }), 400, "invalidSyntax");
    // an attribute the directory does not have is ignored, not refused ([RFC7644§3.3]; strict mode refuses it)
    expect((await send({ Operations: [{ op: "replace", path: "favouriteColour", value: "x" }] })).status).toBe(200);
    expectScimError(await send({ Operations: [{ op: "remove" }] }), 400, "noTarget");
    expectScimError(await send({ Operations: "nope" }), 400, "invalidSyntax");
    expectScimError(await send({ schemas: ["urn:wrong"], Operations: [] }), 400, "invalidSyntax");
    expect((await request(s.app).get(`${U}/${id}`).set(s.auth())).body.meta.version).toBe("W/\"1\"");
  });
});

describe("when Redis cannot be reached", () => {
  let down: { app: ReturnType<typeof createScimApp>; redis: RedisConnection };

  beforeAll(async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const redis = createStoreConnection(`redis://127.0.0.1:${port}`, 500);
    redis.on("error", () => undefined);
    const app = createScimApp({ config: s.config, users: new UserStore(redis, "unused"), groups: new GroupStore(redis, "unused"), logger: createLogger("silent") });
    down = { app, redis };
  });
  afterAll(() => down.redis.disconnect());

  it("should answer 503 with Retry-After, never a 404 that tells an IdP the user is gone", async () => {
    for (const req of [
      request(down.app).get(`${U}/some-id`).set(s.auth()),
      request(down.app).get(`${U}?filter=userName eq "a"`).set(s.auth()),
      request(down.app).post(U).set(s.auth()).send(userBody("nope")),
      request(down.app).delete(`${U}/some-id`).set(s.auth()),
      request(down.app).patch("/scim/v2/acme/Groups/g").set(s.auth()).send({ Operations: [{ op: "add", path: "members", value: [{ value: "u" }] }] }),
    ]) {
      const res = await req;
      expectScimError(res, 503);
      expect(res.headers["retry-after"]).toBe("7");
    }
  });
});
