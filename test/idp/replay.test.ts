/**
 * Replays every recorded IdP exchange of IDP-DIALECTS.md through the real SCIM app (supertest, real Redis):
 * one `describe` per IdP folder under test/fixtures, one `it` per file, so adding a case means adding a file.
 * Each fixture runs on a fresh app with its own Redis key prefix, so fixtures never see each other's data.
 *
 * Fixture format (test/helpers/fixture-replay.ts):
 *   {"row": "E3", "description": "…", "todo"?: "why the server does not do this yet",
 *    "directory"?: {the acme directory's settings, e.g. "strict": true or "extensions": [...]},
 *    "setup"?: [step…], "method", "path", "headers"?, "request"?, "statusCode", "response"?,
 *    "responseHeaders"?, "capture"?, "then"?: [step…]}
 *   a step has the same exchange fields, plus `repeat`; `path` is relative to /scim/v2/acme; `{{name}}` is
 *   a value captured earlier (`"capture": {"userId": "id", "v1": "headers.etag", "ids[]": "id"}`), `{{token}}`
 *   the directory token; `{"$each": "ids", "as": {"value": "{{item}}"}}` expands a collected list.
 *
 * Matcher rules (test/helpers/fixture-match.ts):
 *   scalars equal in value and type; objects are deep partials (listed keys only); arrays have the same
 *   length and their elements pair up in any order; `{"$absent": true}`, `{"$length": n}`,
 *   `{"$contains": [..]}` (array holds these, others allowed) and `{"$match": "regex"}` are operators.
 * A difference fails the test with every mismatching path and the actual body.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { mismatches } from "../helpers/fixture-match";
import { replayFixture, type Fixture } from "../helpers/fixture-replay";
import { startScim, TOKENS } from "../helpers/scim-app";

const ROOT = join(__dirname, "..", "fixtures");
const IDPS = [
  { name: "Okta", dir: "okta" },
  { name: "Microsoft Entra ID", dir: "entra" },
  // request shapes of other clients, which servers such as scimmy and Microsoft's reference code accept (issue 10)
  { name: "Generic SCIM clients", dir: "generic" },
];

function load(dir: string): Array<{ file: string; fx: Fixture }> {
  return readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith(".json"))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
    .map((file) => ({ file, fx: JSON.parse(readFileSync(join(ROOT, dir, file), "utf8")) as Fixture }));
}

async function replay(fx: Fixture): Promise<void> {
  const s = await startScim({}, fx.directory ? { acme: fx.directory } : {});
  try {
    await replayFixture(s.app, fx, TOKENS.acme);
  } finally {
    await s.close();
  }
}

for (const idp of IDPS) {
  describe(idp.name, () => {
    for (const { file, fx } of load(idp.dir)) {
      const name = `${fx.row}: ${fx.description}`;
      if (fx.todo) it.todo(`${name} (todo: ${fx.todo})`);
      else it(name, () => replay(fx));
    }
  });
}

describe("fixture replay", () => {
  it("should name every fixture file after its row", () => {
    for (const idp of IDPS) {
      for (const { file, fx } of load(idp.dir)) expect(file.startsWith(`${fx.row.toLowerCase()}-`)).toBe(true);
    }
  });

  it("should report every difference of a wrong expectation with its path", () => {
    const actual = { active: false, emails: [{ value: "a@x", type: "work" }], meta: { version: 'W/"2"' } };
    expect(mismatches({ active: false, emails: [{ type: "work" }] }, actual)).toEqual([]);
    expect(mismatches({ active: "False" }, actual)).toEqual(['$.active: expected "False", got false']);
    expect(mismatches({ emails: [{ type: "home" }] }, actual)[0]).toMatch(/^\$\.emails: no element matches/);
    expect(mismatches({ emails: [] }, actual)).toHaveLength(1);
    expect(mismatches({ meta: { version: { $match: '^W/"1"$' } }, groups: { $absent: true } }, actual)).toHaveLength(1);
    expect(mismatches({ active: { $absent: true } }, actual)).toHaveLength(1);
  });

  it("should fail a replay whose expected response is wrong", async () => {
    const wrong: Fixture = {
      row: "X1", description: "a create that expects the wrong userName",
      method: "POST", path: "/Users", request: { userName: "replay.selfcheck@example.com" },
      statusCode: 201, response: { userName: "someone.else@example.com" },
    };
    await expect(replay(wrong)).rejects.toThrow(/response\.userName: expected "someone\.else@example\.com", got "replay\.selfcheck@example\.com"/);
    await expect(replay({ ...wrong, response: undefined, statusCode: 200 })).rejects.toThrow(/status: expected 200, got 201/);
  });
});
