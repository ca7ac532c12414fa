import { parseFilter, MAX_FILTER_DEPTH } from "../../../src/scim/query/filter";
import { ScimError } from "../../../src/scim/errors";

function invalid(text: string) {
  let err: unknown;
  try { parseFilter(text); } catch (e) { err = e; }
  expect(err).toBeInstanceOf(ScimError);
  expect(err).toMatchObject({ status: 400, scimType: "invalidFilter" });
}

describe("parseFilter", () => {
  it("should parse a comparison with the attribute name lower-cased and the value kept", () => {
    expect(parseFilter('userName Eq "Bjensen"')).toEqual({ op: "eq", path: { attr: "username" }, value: "Bjensen" });
  });

  it("should give 'not' > 'and' > 'or' precedence and honour grouping", () => {
    expect(parseFilter('a eq 1 or b eq 2 and not (c pr)')).toEqual({
      op: "or",
      left: { op: "eq", path: { attr: "a" }, value: 1 },
      right: { op: "and", left: { op: "eq", path: { attr: "b" }, value: 2 }, right: { op: "not", expr: { op: "pr", path: { attr: "c" } } } },
    });
    expect(parseFilter("((((a eq true))))")).toEqual({ op: "eq", path: { attr: "a" }, value: true });
  });

  it("should parse value paths, including Entra's trailing sub-attribute form (E9)", () => {
    expect(parseFilter('emails[type eq "work" and value co "@"]')).toMatchObject({ op: "vpath", path: { attr: "emails" }, filter: { op: "and" } });
    expect(parseFilter('emails[type eq "work"].value eq "x@y"')).toEqual({
      op: "vpath", path: { attr: "emails" },
      filter: { op: "eq", path: { attr: "type" }, value: "work" },
      then: { op: "eq", path: { attr: "value" }, value: "x@y" },
    });
  });

  it("should split URN-qualified paths and drop the core schema URN", () => {
    expect(parseFilter('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "1"'))
      .toMatchObject({ path: { uri: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:user", attr: "employeenumber" } });
    expect(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"')).toMatchObject({ path: { attr: "username" } });
  });

  it("should read JSON string escapes, numbers, null and booleans", () => {
    expect(parseFilter('title eq "a\\"b\\\\c"')).toMatchObject({ value: 'a"b\\c' });
    expect(parseFilter("x gt -1.5e2")).toMatchObject({ value: -150 });
    expect(parseFilter("x eq null")).toMatchObject({ value: null });
    expect(parseFilter("x ne false")).toMatchObject({ op: "ne", value: false });
  });

  it.each([
    "userName eq", 'userName eq "a" and', "userName xx \"a\"", "foo bar baz", "(userName eq \"a\"", "emails[type eq \"w\"",
    "userName eq unquoted", '"a" eq userName', 'userName eq "unterminated', "", "   ", 'a eq "1" or', "not userName eq \"x\" junk",
    'emails[type eq "w"].', "and", "a[b eq 1]c",
  ])("should refuse %j with 400 invalidFilter", (text) => invalid(text));

  it("should refuse nesting deeper than the limit and filters over the length limit", () => {
    invalid(`${"(".repeat(MAX_FILTER_DEPTH + 1)}a eq 1${")".repeat(MAX_FILTER_DEPTH + 1)}`);
    expect(() => parseFilter(`userName eq "${"a".repeat(100)}"`, 50)).toThrow(/longer than 50/);
  });
});
