/**
 * The matcher of recorded IdP exchanges (test/fixtures/<idp>/*.json): an expected JSON value is compared
 * with what the server answered, and every difference is reported with its path, so a failing fixture
 * reads like a diff. Rules:
 * - a string, number, boolean or null matches only the same value of the same type (`1` ≠ `"1"`);
 * - an object matches when every key it lists matches (a deep partial: unlisted keys are ignored);
 * - an array matches an array of the same length whose elements pair up with the expected ones in any
 *   order (each expected element takes the first unpaired actual element it matches);
 * - operators, objects whose only keys start with `$`:
 *   `{"$absent": true}`   the key is not there (only as the value of an object key),
 *   `{"$length": n}`      an array of n elements,
 *   `{"$contains": [..]}` an array holding a match for each listed element (other elements allowed),
 *   `{"$match": "re"}`    a string the regular expression matches.
 */

type Json = Record<string, unknown>;

const OPERATORS = new Set(["$absent", "$length", "$contains", "$match"]);

function isObject(v: unknown): v is Json {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function isOperator(v: unknown): v is Json {
  return isObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => OPERATORS.has(k));
}

function show(v: unknown): string {
  if (v === undefined) return "(absent)";
  const s = JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

/** Pairs expected elements with distinct actual ones; returns the differences of the first element that finds no partner. */
function pairAll(expected: unknown[], actual: unknown[], path: string): string[] {
  const used = new Set<number>();
  for (const [i, want] of expected.entries()) {
    const hit = actual.findIndex((got, j) => !used.has(j) && mismatches(want, got, "").length === 0);
    if (hit >= 0) { used.add(hit); continue; }
    // no partner: report against the same index, or the closest element, so the diff says why
    const near = actual.findIndex((_, j) => !used.has(j));
    const why = near >= 0 ? mismatches(want, actual[near], `${path}[${near}]`) : [];
    return [`${path}: no element matches expected[${i}] ${show(want)}`, ...why.map((w) => `  closest: ${w}`)];
  }
  return [];
}

function operator(op: Json, actual: unknown, path: string): string[] {
  const out: string[] = [];
  if ("$absent" in op) {
    if (op.$absent === true && actual !== undefined) out.push(`${path}: expected absent, got ${show(actual)}`);
    if (op.$absent === false && actual === undefined) out.push(`${path}: expected present, got (absent)`);
  }
  if ("$length" in op) {
    if (!Array.isArray(actual)) out.push(`${path}: expected an array of ${String(op.$length)}, got ${show(actual)}`);
    else if (actual.length !== op.$length) out.push(`${path}: expected ${String(op.$length)} elements, got ${actual.length}`);
  }
  if ("$contains" in op) {
    if (!Array.isArray(actual)) out.push(`${path}: expected an array, got ${show(actual)}`);
    else out.push(...pairAll(op.$contains as unknown[], actual, path));
  }
  if ("$match" in op) {
    if (typeof actual !== "string" || !new RegExp(String(op.$match)).test(actual)) out.push(`${path}: expected to match /${String(op.$match)}/, got ${show(actual)}`);
  }
  return out;
}

/** Every difference between `expected` and `actual` under the rules above, each as "path: why"; [] when they match. */
export function mismatches(expected: unknown, actual: unknown, path = "$"): string[] {
  if (isOperator(expected)) return operator(expected, actual, path);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${show(actual)}`];
    if (actual.length !== expected.length) return [`${path}: expected ${expected.length} elements, got ${actual.length}: ${show(actual)}`];
    return pairAll(expected, actual, path);
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return [`${path}: expected an object, got ${show(actual)}`];
    return Object.entries(expected).flatMap(([k, v]) => mismatches(v, actual[k], `${path}.${k}`));
  }
  return Object.is(expected, actual) ? [] : [`${path}: expected ${show(expected)}, got ${show(actual)}`];
}
