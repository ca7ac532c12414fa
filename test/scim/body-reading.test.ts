/**
 * The SCIM body reader (src/scim/json-body.ts): plain JSON bodies are read by our reader, the others
 * (chunked, other spellings of the type, other charsets) by express.json. Either way a body means the same
 * and gets the same checks (test/security/bad-input-bodies.test.ts checks UTF-8, surrogates and charsets).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
let server: http.Server;
beforeAll(async () => {
  s = await startScim();
  server = http.createServer(s.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await s.close();
});
const U = "/scim/v2/acme/Users";

/** POSTs `body` in chunks with no Content-Length (Transfer-Encoding: chunked). */
function postChunked(body: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, path: U, method: "POST",
      headers: { ...s.auth(), "Content-Type": "application/scim+json" } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => { text += c; });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on("error", reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    req.end(body.slice(half));
  });
}

describe("SCIM body reading", () => {
  it("should create the same user from a plain body, a chunked one and one whose type express.json reads", async () => {
    const plain = await request(s.app).post(U).set(s.auth()).set("Content-Type", "application/scim+json; charset=utf-8")
      .send(JSON.stringify(userBody("plain.reader@example.com")));
    expect(plain.status).toBe(201);
    const chunked = await postChunked(JSON.stringify(userBody("chunked.reader@example.com")));
    expect(chunked.status).toBe(201);
    // a parameter besides the charset: not a plain type, so express.json reads it
    const other = await request(s.app).post(U).set(s.auth()).set("Content-Type", "application/scim+json;charset=UTF-8;profile=x")
      .send(JSON.stringify(userBody("other.reader@example.com")));
    expect(other.status).toBe(201);
    expect([plain.body.userName, chunked.body.userName, other.body.userName]).toEqual(["plain.reader@example.com", "chunked.reader@example.com", "other.reader@example.com"]);
    expect(await s.users.count("acme")).toBe(3);
  });

  it("should refuse a plain body that is not JSON with 400 invalidSyntax and store nothing", async () => {
    const before = await s.users.count("acme");
    expectScimError(await request(s.app).post(U).set(s.auth()).set("Content-Type", "application/json").send('{"userName": "x",'), 400, "invalidSyntax");
    expectScimError(await request(s.app).post(U).set(s.auth()).set("Content-Type", "application/scim+json").send("not json"), 400, "invalidSyntax");
    expect(await s.users.count("acme")).toBe(before);
  });

  it("should read an empty plain body as {} and refuse a charset other than UTF-8 with 415", async () => {
    // {} is a PatchOp with no operations: nothing to do
    const created = await request(s.app).post(U).set(s.auth()).send(userBody("empty.patch@example.com"));
    const empty = await request(s.app).patch(`${U}/${created.body.id}`).set(s.auth()).set("Content-Type", "application/scim+json").set("Content-Length", "0");
    expect(empty.status).toBe(200);
    expect(empty.body.userName).toBe("empty.patch@example.com");
    expectScimError(await request(s.app).post(U).set(s.auth()).set("Content-Type", "application/json; charset=utf-16")
      .send(Buffer.from(JSON.stringify(userBody("utf16@example.com")), "utf16le")), 415);
  });
});
