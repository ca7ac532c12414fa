/**
 * SCIM filter parser ([RFC7644§3.4.2.2](https://datatracker.ietf.org/doc/html/rfc7644#section-3.4.2.2)),
 * recursive descent over the RFC's grammar:
 *
 *   FILTER    = attrExp / logExp / valuePath / *1"not" "(" FILTER ")"
 *   valuePath = attrPath "[" valFilter "]"
 *   attrExp   = (attrPath SP "pr") / (attrPath SP compareOp SP compValue)
 *
 * plus `valuePath "." subAttr (SP compareOp SP compValue / SP "pr")`, which Entra ID sends
 * (`emails[type eq "work"].value eq "x"`, IDP-DIALECTS E9). "not" binds tighter than "and", which binds
 * tighter than "or" (RFC7644 Table 4: precedence). Attribute names are case-insensitive
 * ([RFC7643§2.1] "Attribute names are case insensitive"), so paths are lower-cased here.
 *
 * Written by hand because SCIMMY's Filter rejects nested parentheses and escaped quotes, mangles
 * attribute-name case and accepts `userName eq` with no value (STACK.md §4.2).
 *
 * Lenient where the reading is unambiguous: a value written without quotes, as SCIMMY and other servers
 * accept (`userName sw O`, `emails.value co example.com`, `meta.created gt 2015-10-10T14:38:21.8617979-07:00`),
 * is the string as written; `true`, `false`, `null` and JSON numbers keep their JSON meaning (a number also
 * keeps its text, so `externalId eq 00123` and `externalId eq 1.50` compare as written on string attributes).
 * A missing value (`userName eq`, `userName eq )`) or a keyword in its place (`userName eq and …`) stays
 * 400 invalidFilter.
 */
import { ScimError } from "../errors";
import { NON_WHITESPACE_CONTROL_CHARACTER } from "../control-characters";
import { hasLoneSurrogate } from "../lone-surrogates";

export type CompareOp = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "ge" | "lt" | "le";
export type CompValue = string | number | boolean | null;

/** `[uri:]attr[.sub]`, all lower-cased; `uri` is set only for extension schemas. */
export interface AttrPath {
  uri?: string;
  attr: string;
  sub?: string;
}

export type FilterNode =
  | { op: "and" | "or"; left: FilterNode; right: FilterNode }
  | { op: "not"; expr: FilterNode }
  | { op: "pr"; path: AttrPath }
  /** `text`: how an unquoted number was written (compared as written against string attributes). */
  | { op: CompareOp; path: AttrPath; value: CompValue; text?: string }
  /** `attr[filter]`, optionally followed by `.sub op value` evaluated on the same element. */
  | { op: "vpath"; path: AttrPath; filter: FilterNode; then?: FilterNode };

const COMPARE_OPS = new Set(["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"]);
const CORE_URIS = ["urn:ietf:params:scim:schemas:core:2.0:user", "urn:ietf:params:scim:schemas:core:2.0:group"];
/** Nesting deeper than this is refused (a guard against stack exhaustion, not a limit IdPs reach). */
export const MAX_FILTER_DEPTH = 32;
/** A JSON number ([RFC8259§6](https://datatracker.ietf.org/doc/html/rfc8259#section-6)); `00123` or `1.` is not one. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** Characters that end an unquoted value: white space, grouping, value-path brackets, a quote. */
const LITERAL = /^[^\s()[\]"]+/;
const KEYWORDS = new Set(["and", "or", "not"]);

function fail(detail: string): never {
  throw new ScimError(400, "invalidFilter", detail);
}

/** Splits `urn:…:User:name.givenName` / `name.givenName` into an AttrPath (lower-cased). */
export function parseAttrPath(raw: string): AttrPath {
  const text = raw.toLowerCase();
  let uri: string | undefined;
  let rest = text;
  if (text.startsWith("urn:")) {
    const cut = text.lastIndexOf(":");
    uri = text.slice(0, cut);
    rest = text.slice(cut + 1);
    if (!rest) fail(`Invalid attribute path '${raw}'`);
    if (CORE_URIS.includes(uri)) uri = undefined;
  }
  const parts = rest.split(".");
  if (parts.length > 2 || parts.some((p) => !/^[a-z$][a-z0-9_$-]*$/.test(p))) fail(`Invalid attribute path '${raw}'`);
  return { ...(uri ? { uri } : {}), attr: parts[0], ...(parts[1] ? { sub: parts[1] } : {}) };
}

class Parser {
  private pos = 0;
  private depth = 0;
  private terms = 0;
  constructor(private readonly src: string, private readonly maxTerms: number) {}

  parse(): FilterNode {
    const node = this.parseOr();
    this.skipSpace();
    if (this.pos < this.src.length) fail(`Unexpected '${this.src.slice(this.pos, this.pos + 20)}' at position ${this.pos + 1} of filter`);
    return node;
  }

  private skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos])) this.pos++;
  }

  /** Reads a bare word (operator, keyword or attribute path) without consuming it when `peek`. */
  private word(peek = false): string {
    this.skipSpace();
    const m = /^[A-Za-z0-9:._$-]+/.exec(this.src.slice(this.pos, this.pos + 512));
    const w = m ? m[0] : "";
    if (!peek) this.pos += w.length;
    return w;
  }

  private expect(ch: string): void {
    this.skipSpace();
    if (this.src[this.pos] !== ch) fail(this.pos >= this.src.length ? `Filter ends where '${ch}' was expected` : `Expected '${ch}' at position ${this.pos + 1} of filter`);
    this.pos++;
  }

  private enter(): void {
    if (++this.depth > MAX_FILTER_DEPTH) fail(`Filter is nested more than ${MAX_FILTER_DEPTH} levels deep`);
  }

  private parseOr(): FilterNode {
    let left = this.parseAnd();
    while (this.word(true).toLowerCase() === "or") {
      this.word();
      left = { op: "or", left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): FilterNode {
    let left = this.parseUnary();
    while (this.word(true).toLowerCase() === "and") {
      this.word();
      left = { op: "and", left, right: this.parseUnary() };
    }
    return left;
  }

  private parseUnary(): FilterNode {
    this.skipSpace();
    if (this.pos >= this.src.length) fail("Filter ends where an expression was expected");
    if (this.src[this.pos] === "(") {
      this.enter();
      this.pos++;
      const inner = this.parseOr();
      this.expect(")");
      this.depth--;
      return inner;
    }
    const w = this.word(true);
    if (w.toLowerCase() === "not") {
      const save = this.pos;
      this.word();
      this.skipSpace();
      if (this.src[this.pos] === "(") {
        this.enter();
        this.pos++;
        const expr = this.parseOr();
        this.expect(")");
        this.depth--;
        return { op: "not", expr };
      }
      this.pos = save; // an attribute that happens to be called "not"
    }
    return this.parseAttrExp();
  }

  private parseAttrExp(): FilterNode {
    const raw = this.word();
    if (!raw) fail(`Expected an attribute name at position ${this.pos + 1} of filter`);
    if (["and", "or"].includes(raw.toLowerCase())) fail(`Unexpected '${raw}' at position ${this.pos - raw.length + 1} of filter`);
    const path = parseAttrPath(raw);
    if (this.src[this.pos] === "[") {
      if (path.sub) fail(`Invalid value path '${raw}['`);
      this.enter();
      this.pos++;
      const filter = this.parseOr();
      this.expect("]");
      this.depth--;
      if (this.src[this.pos] === ".") {
        this.pos++;
        const subRaw = this.word();
        if (!/^[A-Za-z$][A-Za-z0-9_$-]*$/.test(subRaw)) fail(`Invalid sub-attribute after value path '${raw}[…]'`);
        const then = this.parseOperator({ attr: subRaw.toLowerCase() });
        return { op: "vpath", path, filter, then };
      }
      return { op: "vpath", path, filter };
    }
    return this.parseOperator(path);
  }

  private parseOperator(path: AttrPath): FilterNode {
    // each comparison costs work on every record a scan reads: bound how many one filter may hold
    if (++this.terms > this.maxTerms) fail(`Filter has more than ${this.maxTerms} comparisons`);
    const opWord = this.word().toLowerCase();
    if (!opWord) fail(`Expected an operator after '${[path.attr, path.sub].filter(Boolean).join(".")}'`);
    if (opWord === "pr") return { op: "pr", path };
    if (!COMPARE_OPS.has(opWord)) fail(`Unknown operator '${opWord}' in filter`);
    return { op: opWord as CompareOp, path, ...this.parseValue(opWord) };
  }

  private parseValue(opWord: string): { value: CompValue; text?: string } {
    this.skipSpace();
    if (this.pos >= this.src.length || this.src[this.pos] === ")" || this.src[this.pos] === "]") fail(`Operator '${opWord}' needs a value`);
    if (this.src[this.pos] === "\"") return { value: this.parseString() };
    const start = this.pos;
    const w = LITERAL.exec(this.src.slice(this.pos, this.pos + 4096))?.[0] ?? "";
    if (!w) fail(`Operator '${opWord}' needs a value at position ${start + 1} of filter`);
    if (KEYWORDS.has(w.toLowerCase())) fail(`Operator '${opWord}' needs a value; '${w}' at position ${start + 1} is a keyword (quote it to compare with it)`);
    this.pos += w.length;
    if (this.src[this.pos] === "\"") fail(`Unexpected '"' at position ${this.pos + 1} of filter (quote the whole value)`);
    if (w === "true") return { value: true };
    if (w === "false") return { value: false };
    if (w === "null") return { value: null };
    if (JSON_NUMBER.test(w)) return { value: Number(w), text: w };
    if (NON_WHITESPACE_CONTROL_CHARACTER.test(w)) fail(`Value at position ${start + 1} of filter contains a control character`);
    return { value: w };
  }

  /** A JSON string literal: `"a\"b"` → `a"b`. */
  private parseString(): string {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos];
      if (ch === "\\") { this.pos += 2; continue; }
      if (ch === "\"") {
        this.pos++;
        let value: string;
        try {
          value = JSON.parse(this.src.slice(start, this.pos)) as string;
        } catch {
          fail(`Invalid string literal at position ${start + 1} of filter`);
        }
        // stored values never hold these (control-characters.ts), and the indexes fold some to a space
        if (NON_WHITESPACE_CONTROL_CHARACTER.test(value)) fail(`String literal at position ${start + 1} of filter contains a control character`);
        if (hasLoneSurrogate(value)) fail(`String literal at position ${start + 1} of filter contains a lone surrogate escape`);
        return value;
      }
      this.pos++;
    }
    fail(`Unterminated string at position ${start + 1} of filter`);
  }
}

/** Limits of one filter: characters, and comparisons (`attr op value`, `attr pr`). */
export interface FilterLimits {
  maxLength?: number;
  maxTerms?: number;
}

/** Parses a filter expression or throws ScimError 400 invalidFilter. */
export function parseFilter(text: string, limits: number | FilterLimits = {}): FilterNode {
  const { maxLength = 4096, maxTerms = Number.MAX_SAFE_INTEGER } = typeof limits === "number" ? { maxLength: limits } : limits;
  if (typeof text !== "string" || !text.trim()) fail("Filter must be a non-empty string");
  if (text.length > maxLength) fail(`Filter is longer than ${maxLength} characters`);
  return new Parser(text, maxTerms).parse();
}
