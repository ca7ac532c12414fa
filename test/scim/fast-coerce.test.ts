/**
 * fastCoerce gives exactly SCIMMY's result (same attributes, same order, same schemas) for every body it
 * accepts, and hands SCIMMY every body it cannot judge the same way; the bodies IdPs send take it.
 */
import { partitionUserBody } from "../../src/scim/extensions/body";
import { declaredExtensions } from "../../src/scim/extensions/declared";
import fc from "fast-check";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fastCoerce } from "../../src/scim/resources/fast-coerce";
import { coerceWithScimmy } from "../../src/scim/resources/input";
import { coerceObject } from "../../src/scim/dialects/coerce-values";

type Json = Record<string, unknown>;
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const CORE = "urn:ietf:params:scim:schemas:core:2.0:User";

/** SCIMMY's result as JSON text (key order included), or its error. */
function reference(kind: "User" | "Group", body: Json): string {
  try { return JSON.stringify(coerceWithScimmy(kind, body)); } catch (err) { return `error: ${(err as Error).message}`; }
}

function caseOf(name: string, n: number): string {
  return n % 5 < 3 ? name : n % 5 === 3 ? name.toUpperCase() : name.toLowerCase();
}

const scalar = fc.oneof(fc.string({ maxLength: 6 }), fc.boolean(), fc.constant(null), fc.integer({ min: -2, max: 2 }), fc.constant(""));
/** Mostly a value of the right type, sometimes anything. */
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: scalar });
const str = fc.oneof(fc.string({ maxLength: 8 }), fc.constant(""), fc.constant("Zoë 山田"));
const element = (subs: Record<string, fc.Arbitrary<unknown>>) => fc.record(subs, { requiredKeys: [] });
const multi = (subs: Record<string, fc.Arbitrary<unknown>>) => fc.oneof(
  { weight: 6, arbitrary: fc.array(element(subs), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(element(subs), scalar), { maxLength: 2 }) },
);
const typed = { value: mostly(str), type: mostly(fc.constantFrom("work", "home", "Work", "other")), primary: mostly(fc.boolean()), display: mostly(str) };
const userBodies = fc.record({
  schemas: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(undefined, [CORE], [CORE, ENT]) },
    { weight: 1, arbitrary: fc.constantFrom([ENT, CORE], [CORE, ENT.toLowerCase()], ["urn:x"], "x", [CORE.toUpperCase()], [CORE, CORE]) }),
  userName: mostly(fc.string({ minLength: 1, maxLength: 8 })),
  name: mostly(fc.record({ givenName: mostly(str), familyName: mostly(str), formatted: mostly(str), frob: scalar, GIVENNAME: str, "a.b": str }, { requiredKeys: [] })),
  emails: mostly(multi({ ...typed, frob: scalar, $ref: fc.constant(null) })),
  phoneNumbers: mostly(multi(typed)),
  roles: mostly(multi(typed)),
  active: mostly(fc.boolean()),
  displayName: mostly(str),
  title: mostly(str),
  externalId: mostly(str),
  locale: mostly(str),
  password: mostly(str),
  groups: mostly(fc.constantFrom([], undefined)),
  id: mostly(fc.uuid()),
  meta: mostly(fc.constant({ resourceType: "User" })),
  frobnicate: fc.oneof(fc.constant(undefined), scalar),
  profileUrl: fc.oneof(fc.constant(undefined), fc.webUrl()),
  ext: mostly(fc.record({ department: mostly(str), employeeNumber: mostly(str), manager: mostly(fc.record({ value: mostly(str), displayName: mostly(str) }, { requiredKeys: [] })), frob: scalar }, { requiredKeys: [] })),
  caseSeed: fc.nat(),
}, { requiredKeys: [] });

function toBody(r: Record<string, unknown>): Json {
  const body: Json = {};
  let n = Number(r.caseSeed ?? 0);
  for (const [k, v] of Object.entries(r)) {
    if (k === "caseSeed" || v === undefined) continue;
    if (k === "ext") { body[n++ % 4 ? ENT : ENT.toLowerCase()] = v; continue; }
    body[caseOf(k, n++)] = v;
  }
  return body;
}

describe("fastCoerce", () => {
  it("should equal SCIMMY's coercion, attribute order included, for every user body it accepts", () => {
    let fast = 0;
    fc.assert(fc.property(userBodies, (r) => {
      const body = coerceObject("User", toBody(r)) as Json;
      const got = fastCoerce("User", body);
      if (!got) return;
      fast++;
      expect(JSON.stringify(got)).toBe(reference("User", body));
    }), { numRuns: 4000 });
    expect(fast).toBeGreaterThan(30); // the property was not vacuous (~1.5% of the bodies are all of the right types)
  });

  it("should leave an extension holding only an empty complex value to SCIMMY (it drops both)", () => {
    const body = { schemas: [CORE, ENT], userName: "u", [ENT]: { manager: {} } };
    const got = fastCoerce("User", body);
    if (got) expect(JSON.stringify(got)).toBe(reference("User", body));
    expect(reference("User", body)).not.toContain(ENT); // SCIMMY's reading, which the fast path must not contradict
  });

  it("should equal SCIMMY's coercion for group bodies it accepts", () => {
    fc.assert(fc.property(fc.record({ displayName: scalar, externalId: scalar, schemas: fc.constantFrom(undefined, ["urn:ietf:params:scim:schemas:core:2.0:Group"]), frob: scalar }, { requiredKeys: [] }), (r) => {
      const body = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined));
      const got = fastCoerce("Group", body);
      if (got) expect(JSON.stringify(got)).toBe(reference("Group", body));
    }), { numRuns: 500 });
  });

  it("should take the create and replace bodies of the Okta and Entra fixtures", () => {
    const bodies: Array<[string, Json]> = [];
    const walk = (x: unknown, file: string) => {
      if (Array.isArray(x)) { x.forEach((y) => walk(y, file)); return; }
      if (!x || typeof x !== "object") return;
      const step = x as Json;
      if ((step.method === "POST" || step.method === "PUT") && String(step.path).startsWith("/Users") && !String(step.path).includes(".search") && step.request && typeof step.request === "object" && (step.statusCode ?? 201) as number < 300) {
        bodies.push([file, step.request as Json]);
      }
      for (const v of Object.values(step)) walk(v, file);
    };
    for (const idp of ["okta", "entra"]) {
      const dir = join(__dirname, "..", "fixtures", idp);
      for (const f of readdirSync(dir)) walk(JSON.parse(readFileSync(join(dir, f), "utf8")), `${idp}/${f}`);
    }
    expect(bodies.length).toBeGreaterThan(20);
    const slow = bodies.filter(([, b]) => !JSON.stringify(b).includes("{{")).filter(([, b]) => !fastCoerce("User", coerceObject("User", partitionUserBody(b, declaredExtensions([])).known) as Json));
    expect(slow.map(([f]) => f)).toEqual([]);
  });

  it("should hand SCIMMY the bodies it cannot judge the same way", () => {
    for (const body of [
      { userName: "a", active: "yes" }, { userName: "a", emails: { value: "x" } }, { userName: "a", UserName: "b" }, { userName: "a", "name.givenName": "x" },
      { userName: "a", [`${ENT}:department`]: "x" }, { userName: "a", profileUrl: "https://x" }, { userName: "a", emails: [{ value: "x", primary: true }, { value: "y", primary: true }] },
      { title: "no userName" }, { userName: "a", schemas: ["urn:x"] }, { userName: "a", schemas: [CORE.toUpperCase()] }, { userName: "a", schemas: [CORE, ENT.toLowerCase()] }, { userName: "a", emails: [null] },
    ]) {
      expect(fastCoerce("User", body as Json)).toBeUndefined();
    }
  });
});
