/**
 * `scim-bridge directory …` end to end, as an operator runs it (the compiled CLI, through a running
 * bridge's admin API): create a directory, push to it over SCIM with the printed token and see it reach
 * the platform simulator; rotate the token; disable (SCIM 403); delete with an explicit platform choice
 * and find no key of the directory left. Delete with `--platform deprovision`: the CLI lists what it would
 * deprovision and exits 3 with nothing done; `--confirm` deactivates on the platform, then the purge follows.
 */
import { compiledBuild, runCompiledCli } from "../helpers/compiled-build";
import { startSyncEnv, waitFor, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { scanKeys } from "../helpers/redis";

let e: SyncEnv;
let s: BridgeServer;

// each CLI run is a node process: on a busy machine a dozen of them take a while
jest.setTimeout(120000);

beforeAll(async () => {
  compiledBuild(); // built once, before the test (a dozen CLI runs follow)
  e = await startSyncEnv();
  s = await startBridgeServer(e);
}, 180000);
afterAll(async () => { await s.close(); await e.close(); });

const cli = (args: string[]) => runCompiledCli(["directory", ...args], { SCIM_BRIDGE_URL: s.url, SCIM_BRIDGE_ADMIN_TOKEN: ADMIN_TOKEN });
const scim = (token: string, method = "GET", body?: object) => fetch(`${s.url}/scim/v2/globex/Users`, {
  method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" }, body: body && JSON.stringify(body),
});

describe("scim-bridge directory", () => {
  it("should onboard a directory, rotate its token, disable it and delete it, leaving no key", async () => {
    const input = { id: "globex", target: "workforce", platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" } };
    const created = await cli(["create", "--json", JSON.stringify(input)]);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toContain("SCIM base URL  https://bridge.example.com/scim/v2/globex");
    const token = /Bearer token\s+(\S+)/.exec(created.stdout)![1];

    expect((await scim(token, "POST", userBody("gina@globex.example"))).status).toBe(201);
    await waitFor(async () => (await e.simState()).scim.users.some((u) => u.userName === "gina@globex.example"), 15000, "gina on the platform");

    const list = await cli(["list"]);
    expect(list.stdout).toMatch(/^globex\s+runtime\s+workforce/m);
    expect(list.stdout).toMatch(/^wf\s+from config/m);

    const again = await cli(["create", "--json", JSON.stringify({ ...input, target: "nope" })]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/- target: /);

    const rotated = await cli(["token", "create", "globex", "--label", "rotation"]);
    expect(rotated.code).toBe(0);
    const second = /\n\s+(\S+)/.exec(rotated.stdout)![1];
    expect((await scim(second)).status).toBe(200);
    expect((await scim(token)).status).toBe(200);
    const firstId = /token id (\w+)/.exec(created.stdout)![1];
    expect((await cli(["token", "revoke", "globex", firstId])).code).toBe(0);
    expect((await scim(token)).status).toBe(401);

    expect((await cli(["disable", "globex"])).code).toBe(0);
    expect((await scim(second)).status).toBe(403);
    const show = await cli(["show", "globex"]);
    expect(JSON.parse(show.stdout)).toMatchObject({ id: "globex", health: "disabled", tokens: [{ label: "rotation" }] });

    // no terminal to ask on: the platform choice must be given
    const unsaid = await cli(["delete", "globex"]);
    expect(unsaid.code).not.toBe(0);
    expect(unsaid.stderr).toMatch(/--platform leave/);
    const deleted = await cli(["delete", "globex", "--platform", "leave"]);
    expect(deleted.stderr).toBe("");
    expect(deleted.stdout).toMatch(/directory globex deleted/);
    const left = await scanKeys(e.redis, `${e.prefix}:{globex}:*`);
    expect(left).toEqual([]);
    expect((await cli(["show", "globex"])).code).not.toBe(0);

    const noUrl = await runCompiledCli(["directory", "list"], { SCIM_BRIDGE_URL: "", SCIM_BRIDGE_ADMIN_TOKEN: "" });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/--url/);
  });

  it("should hold a delete with --platform deprovision (exit 3, nothing deactivated) until --confirm, then deactivate and purge", async () => {
    const input = { id: "initech", target: "workforce", platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" } };
    const created = await cli(["create", "--json", JSON.stringify(input)]);
    expect(created.code).toBe(0);
    const token = /Bearer token\s+(\S+)/.exec(created.stdout)![1];
    const post = await fetch(`${s.url}/scim/v2/initech/Users`, {
      method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" }, body: JSON.stringify(userBody("peter@initech.example")),
    });
    expect(post.status).toBe(201);
    const peter = () => e.simState().then((st) => st.scim.users.find((u) => u.userName === "peter@initech.example"));
    await waitFor(async () => (await peter())?.externalId?.startsWith("initech:"), 15000, "peter on the platform");
    expect((await cli(["disable", "initech"])).code).toBe(0);

    const asked = await cli(["delete", "initech", "--platform", "deprovision", "--by", "Bill L."]);
    expect(asked.stderr).toBe("");
    expect(asked.code).toBe(3);
    expect(asked.stdout).toMatch(/delete of initech AWAITS CONFIRMATION/);
    expect(asked.stdout).toMatch(/user\s+peter@initech.example/);
    expect(asked.stdout).toContain("scim-bridge directory delete initech --platform deprovision --confirm");
    expect((await peter())?.active).not.toBe(false);

    const confirmed = await cli(["delete", "initech", "--platform", "deprovision", "--confirm", "--by", "Bill L."]);
    expect(confirmed.stderr).toBe("");
    expect(confirmed.code).toBe(0);
    expect(confirmed.stdout).toMatch(/confirmed: 1 deprovision/);
    const keysLeft = () => scanKeys(e.redis, `${e.prefix}:{initech}:*`);
    // the record goes first, then the keys: wait for both
    await waitFor(async () => (await e.redis.hexists(`${e.prefix}:directories`, "initech")) === 0 && (await keysLeft()).length === 0, 30000, "initech deleted and purged");
    expect(await keysLeft()).toEqual([]);
    expect((await peter())?.active).toBe(false);
  });
});
