import { jsonNestedDeeperThan, MAX_JSON_DEPTH } from "../../src/scim/json-body";

const b = (s: string) => Buffer.from(s, "utf8");

describe("jsonNestedDeeperThan", () => {
  it("should count object and array nesting", () => {
    expect(jsonNestedDeeperThan(b('{"a":[{"b":1}]}'), 3)).toBe(false);
    expect(jsonNestedDeeperThan(b('{"a":[{"b":[]}]}'), 3)).toBe(true);
    expect(jsonNestedDeeperThan(b("[[],[],[]]"), 2)).toBe(false);
  });

  it("should not count brackets inside strings, escaped quotes included", () => {
    expect(jsonNestedDeeperThan(b(JSON.stringify({ a: "[[[[{{{{" })), 1)).toBe(false);
    expect(jsonNestedDeeperThan(b(JSON.stringify({ a: "\"[[[[\\\"{{{{" })), 1)).toBe(false);
    expect(jsonNestedDeeperThan(b(JSON.stringify({ "k[[[": ["]]]"] })), 2)).toBe(false);
  });

  it("should accept what IdPs send and refuse a 10,000-level body", () => {
    const patch = { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", value: { "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { manager: { value: "x" } }, emails: [{ value: "a", type: "work" }] } }] };
    expect(jsonNestedDeeperThan(b(JSON.stringify(patch)), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonNestedDeeperThan(b("[".repeat(10000) + "]".repeat(10000)), MAX_JSON_DEPTH)).toBe(true);
  });
});
