/**
 * One platform account, whatever the spelling of its base URL: two directories on one simulator account,
 * the second spelling it differently (upper-case scheme, trailing-dot IPv4, dot segments, trailing slash),
 * share one ownership map, so the second cannot adopt, rename or deactivate the first one's user; hand-over
 * between them works and names the one account.
 */
import request from "supertest";
import { ADMIN_TOKEN, adminApp, adminConfig } from "../helpers/resync";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { userBody } from "../helpers/expect-scim";
import { AccountKeys } from "../../src/accounts/account-keys";
import { accountIdentity } from "../../src/accounts/account-identity";

const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
/** `http://127.0.0.1:<port>/api` spelled `HTTP://127.0.0.1.:<port>/x/../api/.` */
const respell = (u: string) => u.replace(/^http:\/\/127\.0\.0\.1:(\d+)\/api$/, "HTTP://127.0.0.1.:$1/x/../api/.");

let e: SyncEnv;
let current: AccountKeys;
let typed = "";
beforeAll(async () => {
  e = await startSyncEnv({ config: adminConfig, directories: [{ id: "wf2", platform: { baseUrl: respell } }] });
  typed = e.config.directories.find((d) => d.id === "wf2")!.platform.baseUrl;
  current = new AccountKeys(e.prefix);
});
afterAll(async () => e.close());

const platformUser = async (userName: string) => (await e.simState()).scim.users.filter((u) => u.userName === userName);
const settled = (dir: string, id: string, want: "synced" | "failed", what: string) =>
  waitFor(async () => { const st = await e.state.get(dir, "user", id); return st.status === want ? st : undefined; }, 15000, what);

describe("two spellings of one platform account", () => {
  it("should be configured as two spellings that name one account", () => {
    const wf = e.config.directories.find((d) => d.id === "wf")!.platform.baseUrl;
    expect(typed).not.toBe(wf);
    expect(accountIdentity(typed)).toBe(accountIdentity(wf));
  });

  let pid = "";
  let inWf = "";
  let inWf2 = "";
  it("should not let the second spelling adopt, rename or deactivate the first directory's user", async () => {
    inWf = (await e.scim("wf").post("/Users", userBody("acct.alice@example.com", { displayName: "Alice of wf" }))).body.id;
    pid = (await settled("wf", inWf, "synced", "wf's alice synced")).platformId!;
    const r = await e.scim("wf2").post("/Users", userBody("acct.alice@example.com", { displayName: "Alice of wf2" }));
    expect(r.status).toBe(201);
    inWf2 = r.body.id;
    expect((await settled("wf2", inWf2, "failed", "wf2's adoption refused")).lastError).toMatch(/^ownership conflict: platform user .* is managed by directory "wf"/);

    expect((await e.scim("wf2").patch(`/Users/${inWf2}`, { schemas: [PATCH], Operations: [{ op: "replace", path: "displayName", value: "Renamed by wf2" }] })).status).toBe(200);
    await settled("wf2", inWf2, "failed", "wf2's rename refused");
    expect((await e.scim("wf2").delete(`/Users/${inWf2}`)).status).toBe(204);
    // wf2's user never held a platform id, so its delete's reconcile makes no platform call and only
    // forgets the user's sync state: wait for that, then the platform must still hold wf's user untouched
    await waitFor(async () => (await e.state.get("wf2", "user", inWf2)).status === undefined, 15000, "wf2's delete reconciled without a call");
    await waitIdle(e, "wf");
    const onPlatform = await platformUser("acct.alice@example.com");
    expect(onPlatform).toHaveLength(1);
    expect(onPlatform[0]).toMatchObject({ id: pid, externalId: `wf:${inWf}`, displayName: "Alice of wf", active: true });
  });

  it("should hand over between the two spellings, naming the one account", async () => {
    const res = await request(adminApp(e)).post("/admin/ownership/handover").set(auth).send({ space: "u", resource: pid, to: "wf2", from: "wf", by: "carol" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ from: "wf", to: "wf2", account: accountIdentity(typed) });
    expect(await e.redis.hget(current.owners(typed, "u"), pid)).toBe("wf2");
  });
});
