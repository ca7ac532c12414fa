/** Shared assertions on SCIM responses (whole RFC 7644 §3.12 error bodies, content type). */
import type { Response } from "supertest";

/** What `expectScimError` reads of a response (a supertest Response or a raw one). */
export type ResponseLike = Pick<Response, "status" | "text"> & { body: unknown; headers: Record<string, string | string[] | undefined> };

/** Asserts an RFC 7644 §3.12 error body with `status` (as a string) and, when given, `scimType`. */
export function expectScimError(res: ResponseLike, status: number, scimType?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status,
    body: { schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: String(status), ...(scimType ? { scimType } : {}) },
  });
  const body = res.body as { detail?: unknown; scimType?: unknown };
  expect(typeof body.detail).toBe("string");
  if (!scimType) expect(body.scimType).toBeUndefined();
  expect(res.headers["content-type"]).toMatch(/application\/scim\+json/);
  expect(res.text).not.toMatch(/<html|\n\s+at /i);
}

/** A minimal valid user body. */
export function userBody(userName: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName,
    name: { givenName: "Given", familyName: "Family" },
    emails: [{ primary: true, value: userName.includes("@") ? userName : `${userName}@example.com`, type: "work" }],
    active: true,
    ...extra,
  };
}
