import { loneSurrogateAt, nestedDeeperThan, MAX_JSON_DEPTH } from "../../src/scim/json-body";

describe("nestedDeeperThan", () => {
  it("should count object and array nesting of the parsed value", () => {
    expect(nestedDeeperThan(JSON.parse('{"a":[{"b":1}]}'), 3)).toBe(false);
    expect(nestedDeeperThan(JSON.parse('{"a":[{"b":[]}]}'), 3)).toBe(true);
    expect(nestedDeeperThan(JSON.parse("[[],[],[]]"), 2)).toBe(false);
    expect(nestedDeeperThan("just a string", 0)).toBe(false);
  });

  it("should not count brackets inside strings or keys", () => {
    expect(nestedDeeperThan({ a: "[[[[{{{{" }, 1)).toBe(false);
    expect(nestedDeeperThan({ "k[[[": ["]]]"] }, 2)).toBe(false);
  });

  it("should count a value under a \"__proto__\" key, which JSON.parse makes an own property", () => {
    expect(nestedDeeperThan(JSON.parse('{"__proto__":{"a":[[]]}}'), 3)).toBe(true);
    expect(nestedDeeperThan(JSON.parse('{"__proto__":{"a":[[]]}}'), 4)).toBe(false);
  });

  it("should accept what IdPs send and refuse a 100,000-level body, recursing no deeper than the limit", () => {
    const patch = { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", value: { "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { manager: { value: "x" } }, emails: [{ value: "a", type: "work" }] } }] };
    expect(nestedDeeperThan(patch, MAX_JSON_DEPTH)).toBe(false);
    expect(nestedDeeperThan(JSON.parse("[".repeat(100_000) + "]".repeat(100_000)), MAX_JSON_DEPTH)).toBe(true);
    expect(nestedDeeperThan(JSON.parse('{"a":'.repeat(100_000) + "1" + "}".repeat(100_000)), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe("loneSurrogateAt", () => {
  it("should find a lone high or low surrogate in a value or a key, and accept pairs", () => {
    expect(loneSurrogateAt(JSON.parse('{"userName":"a\\ud800b"}'))).toBe("userName");
    expect(loneSurrogateAt(JSON.parse('{"emails":[{"value":"ok"},{"value":"\\udfff"}]}'))).toBe("emails[1].value");
    expect(loneSurrogateAt(JSON.parse('{"name":{"\\ud800":"x"}}'))).toBe("name.(key)");
    expect(loneSurrogateAt(JSON.parse('{"displayName":"\\ud83d\\ude00 smile","title":"\\u00e9"}'))).toBeUndefined();
    expect(loneSurrogateAt(JSON.parse('"\\ud800"'))).toBe("(body)");
  });
});
