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
      left: { op: "eq", path: { attr: "a" }, value: 1, text: "1" },
      right: { op: "and", left: { op: "eq", path: { attr: "b" }, value: 2, text: "2" }, right: { op: "not", expr: { op: "pr", path: { attr: "c" } } } },
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
    '"a" eq userName', 'userName eq "unterminated', "", "   ", 'a eq "1" or', "not userName eq \"x\" junk",
    'emails[type eq "w"].', "and", "a[b eq 1]c", "userName eq )", "userName eq and title pr", "userName eq OR", "(userName eq)",
    'userName eq a"b', "emails[type eq ]", 'title eq "\\ud800"', "title eq \u0001x",
  ])("should refuse %j with 400 invalidFilter", (text) => invalid(text));

  describe("unquoted values (issue 10 item 3: lenient where the reading is unambiguous)", () => {
    it.each([
      ["userName sw O", { op: "sw", path: { attr: "username" }, value: "O" }],
      ["emails.value co example.com", { op: "co", path: { attr: "emails", sub: "value" }, value: "example.com" }],
      ["userName eq bjensen@example.com", { op: "eq", path: { attr: "username" }, value: "bjensen@example.com" }],
      ["meta.created gt 2015-10-10T14:38:21.8617979-07:00", { op: "gt", path: { attr: "meta", sub: "created" }, value: "2015-10-10T14:38:21.8617979-07:00" }],
      ["meta.created gt 2015-10-10T14:38:21+05:30", { op: "gt", value: "2015-10-10T14:38:21+05:30" }],
      ["externalId eq 00123", { op: "eq", value: "00123" }],
      ["externalId eq abc-DEF_1", { op: "eq", value: "abc-DEF_1" }],
      ["title eq True", { op: "eq", value: "True" }],
    ])("should read %j as a string", (text, node) => {
      expect(parseFilter(text)).toMatchObject(node);
      expect(parseFilter(text)).not.toHaveProperty("text");
    });

    it("should keep the JSON meaning of true, false, null and numbers, and a number's text", () => {
      expect(parseFilter("active eq true")).toEqual({ op: "eq", path: { attr: "active" }, value: true });
      expect(parseFilter("active eq false")).toMatchObject({ value: false });
      expect(parseFilter("title eq null")).toMatchObject({ value: null });
      expect(parseFilter("externalId eq 1.50")).toEqual({ op: "eq", path: { attr: "externalid" }, value: 1.5, text: "1.50" });
      expect(parseFilter("x gt -2e3")).toMatchObject({ value: -2000, text: "-2e3" });
    });

    it("should read the issue's grouped example with unquoted literals", () => {
      expect(parseFilter("name.familyName eq Employee and (emails.value co example.com or emails.value co example.org)")).toEqual({
        op: "and",
        left: { op: "eq", path: { attr: "name", sub: "familyname" }, value: "Employee" },
        right: {
          op: "or",
          left: { op: "co", path: { attr: "emails", sub: "value" }, value: "example.com" },
          right: { op: "co", path: { attr: "emails", sub: "value" }, value: "example.org" },
        },
      });
      expect(parseFilter("emails[type eq work].value eq x@y")).toMatchObject({ op: "vpath", filter: { value: "work" }, then: { value: "x@y" } });
    });
  });

  it("should refuse more comparisons than maxTerms", () => {
    const three = 'a eq "1" or b pr or c eq 3';
    expect(parseFilter(three, { maxTerms: 3 })).toMatchObject({ op: "or" });
    expect(() => parseFilter(three, { maxTerms: 2 })).toThrow(/more than 2 comparisons/);
  });

  it("should refuse nesting deeper than the limit and filters over the length limit", () => {
    invalid(`${"(".repeat(MAX_FILTER_DEPTH + 1)}a eq 1${")".repeat(MAX_FILTER_DEPTH + 1)}`);
    expect(() => parseFilter(`userName eq "${"a".repeat(100)}"`, 50)).toThrow(/longer than 50/);
  });
});
