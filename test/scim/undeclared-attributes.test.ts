/**
 * Attributes a directory does not have (an unknown extension URN, a core name outside the schema) in POST,
 * PUT and PATCH: ignored alike while the rest of the request is applied, each ignored path visible in the
 * resource's activity trail and in a log line at info (paths, never values); refused with 400 and nothing
 * changed in a strict directory.
 */
import { Writable } from "node:stream";
import request from "supertest";
import { createScimApp } from "../../src/scim/app";
import { createLogger } from "../../src/observability/logger";
import { startScim, type TestScim } from "../helpers/scim-app";
import { expectScimError } from "../helpers/expect-scim";
import { expectUnchanged } from "../helpers/redis-snapshot";
import { waitTrail } from "../helpers/activity-wait";

const CORE = "urn:ietf:params:scim:schemas:core:2.0:User";
const CUSTOM = "urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User";
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const U = "/scim/v2/acme/Users";
const SU = "/scim/v2/globex/Users";

let s: TestScim;
let lines: string[];
let app: ReturnType<typeof createScimApp>;

beforeAll(async () => {
  s = await startScim({}, { globex: { strict: true } });
  lines = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  app = createScimApp({ config: s.config, users: s.users, groups: s.groups, logger: createLogger("info", sink) });
});
afterAll(async () => s.close());

const user = (userName: string, extra: Record<string, unknown> = {}) => ({ schemas: [CORE, CUSTOM], userName, active: true, [CUSTOM]: { CostCenterCode: "CC-secret-0" }, favouriteColour: "blue", ...extra });

describe("lenient (default)", () => {
  it("should create, replace and patch while ignoring the undeclared attributes, and name them in the trail and the log", async () => {
    const created = await request(app).post(U).set(s.auth()).send(user("lenient@example.com"));
    expect(created.status).toBe(201);
    expect(created.body[CUSTOM]).toBeUndefined();
    expect(created.body.schemas).toEqual([CORE]);
    const id = created.body.id as string;
    await waitTrail(s, "acme", id, (e) => e.method === "POST" && JSON.stringify(e.ignored) === JSON.stringify([`${CUSTOM}:CostCenterCode`, "favouriteColour"]));

    const put = await request(app).put(`${U}/${id}`).set(s.auth()).send(user("lenient@example.com", { displayName: "Len" }));
    expect(put.status).toBe(200);
    expect(put.body.displayName).toBe("Len");
    await waitTrail(s, "acme", id, (e) => e.method === "PUT" && !!e.ignored?.includes("favouriteColour"));

    // IDP-DIALECTS E20: the deactivation in the same PATCH is applied
    const patched = await request(app).patch(`${U}/${id}`).set(s.auth()).send({ schemas: [PATCH], Operations: [
      { op: "Replace", path: "active", value: "False" },
      { op: "Add", path: `${CUSTOM}:CostCenterCode`, value: "CC-secret-1" },
      { op: "replace", value: { nickName: "Lenny", "name.middleName2": "x", [CUSTOM]: { Division: "D-secret" } } },
    ] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ active: false, nickName: "Lenny" });
    expect(patched.body[CUSTOM]).toBeUndefined();
    const trail = await waitTrail(s, "acme", id, (e) => e.method === "PATCH");
    expect(trail.find((e) => e.method === "PATCH")!.ignored).toEqual([`${CUSTOM}:CostCenterCode`, "name.middleName2", `${CUSTOM}:Division`]);

    const logged = lines.map((l) => JSON.parse(l) as { msg: string; level: number; ignored?: string[] }).filter((l) => l.ignored);
    expect(logged.map((l) => l.level)).toEqual([30, 30, 30]);
    expect(logged[2].ignored).toEqual([`${CUSTOM}:CostCenterCode`, "name.middleName2", `${CUSTOM}:Division`]);
    expect(lines.join("\n")).not.toMatch(/CC-secret|D-secret|blue/);
  });

  it("should record a PATCH that names only undeclared attributes (nothing changes, the trail says why)", async () => {
    const id = (await request(app).post(U).set(s.auth()).send({ userName: "only-ignored@example.com" })).body.id as string;
    const res = await request(app).patch(`${U}/${id}`).set(s.auth()).send({ Operations: [{ op: "add", path: `${CUSTOM}:CostCenterCode`, value: "x" }] });
    expect(res.status).toBe(200);
    expect(res.body.meta.version).toBe('W/"1"');
    await waitTrail(s, "acme", id, (e) => e.method === "PATCH" && !!e.ignored?.length);
  });
});

describe("strict directory", () => {
  it("should refuse POST and PUT with 400 invalidSyntax and PATCH with 400 invalidPath, changing nothing", async () => {
    await expectUnchanged(s.redis, s.prefix, async () => {
      expectScimError(await request(app).post(SU).set(s.auth("globex")).send(user("strict@example.com")), 400, "invalidSyntax");
      expectScimError(await request(app).post(SU).set(s.auth("globex")).send({ userName: "strict@example.com", favouriteColour: "blue" }), 400, "invalidSyntax");
    });
    const id = (await request(app).post(SU).set(s.auth("globex")).send({ userName: "strict@example.com" })).body.id as string;
    await expectUnchanged(s.redis, s.prefix, async () => {
      expectScimError(await request(app).put(`${SU}/${id}`).set(s.auth("globex")).send(user("strict@example.com")), 400, "invalidSyntax");
      const res = await request(app).patch(`${SU}/${id}`).set(s.auth("globex")).send({ Operations: [
        { op: "Replace", path: "active", value: "False" }, { op: "Add", path: `${CUSTOM}:CostCenterCode`, value: "CC-1" },
      ] });
      expectScimError(res, 400, "invalidPath");
      expect(res.body.detail).toContain(`${CUSTOM}:CostCenterCode`);
      expectScimError(await request(app).patch(`${SU}/${id}`).set(s.auth("globex")).send({ Operations: [{ op: "replace", value: { favouriteColour: "x" } }] }), 400, "invalidPath");
    }, /:a:u:/);
  });
});
