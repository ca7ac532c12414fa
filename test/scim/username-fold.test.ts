/**
 * userName uniqueness compares Unicode NFC and case-folded forms (RFC 7643 §4.1.1 unique and caseExact
 * false; RFC 8265 §3.3.2 NFC and case mapping): "Straße" and "STRASSE", a composed and a decomposed "é",
 * are one name — the second POST is 409 uniqueness and a filter finds the first.
 */
import request from "supertest";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError, userBody } from "../helpers/expect-scim";

let s: TestScim;
const U = "/scim/v2/acme/Users";
beforeAll(async () => { s = await startScim(); });
afterAll(async () => s.close());

const post = (userName: string) => request(s.app).post(U).set(s.auth()).send(userBody(userName));
const find = async (userName: string) => (await request(s.app).get(U).query({ filter: `userName eq ${JSON.stringify(userName)}` }).set(s.auth())).body.Resources.map((r: { id: string }) => r.id);

describe("userName uniqueness on folded forms", () => {
  it.each([
    ["Straße", "STRASSE"],
    ["jos\u00e9@example.com", "jose\u0301@example.com"],
    ["JOSE\u0301@EXAMPLE.COM", "jos\u00e9@example.com"],
    ["ﬁona@example.com", "FIONA@example.com"],
  ])("should refuse %j once %j exists, and find one by the other", async (first, second) => {
    const a = await post(second);
    expect(a.status).toBe(201);
    expectScimError(await post(first), 409, "uniqueness");
    expect(await find(first)).toEqual([a.body.id]);
    await request(s.app).delete(`${U}/${a.body.id}`).set(s.auth()).expect(204);
    const b = await post(first);
    expect(b.status).toBe(201);
    await request(s.app).delete(`${U}/${b.body.id}`).set(s.auth()).expect(204);
  });

  it("should keep the name as sent", async () => {
    const r = await post("Ærøskøbing.Straße@example.com");
    expect(r.body.userName).toBe("Ærøskøbing.Straße@example.com");
  });
});
