/**
 * Forged admin requests: a signed-in person's cookie is sent by the browser with any request to the bridge's
 * host, including one a page on another port or a sibling subdomain makes. A state-changing request made with
 * the cookie is accepted only from the bridge's own origin and with the session's form token; the Bearer
 * admin token is unaffected. Over HTTP against the real server.
 */
import request from "supertest";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { expectUnchanged } from "../helpers/redis-snapshot";

let e: SyncEnv;
let s: BridgeServer;
beforeAll(async () => {
  e = await startSyncEnv();
  s = await startBridgeServer(e);
  // the workers' key check at start calls the platform and counts the call a second later: let it land, or
  // the "nothing changed" snapshots below see it
  for (const dir of ["wf", "em"] as const) {
    await waitFor(async () => !!((await (await s.admin(`/directories/${dir}`)).json()) as { platformKey: { checkedAt?: string } }).platformKey.checkedAt, 15000, `${dir} key checked`);
    await waitIdle(e, dir);
  }
}, 30000);
afterAll(async () => { await s?.close(); await e?.close(); });

const FORM = "application/x-www-form-urlencoded";

/** Signs in as a person: the session cookie and the form token its directory page carries. */
async function signIn(): Promise<{ cookie: string; formToken: string; html: string }> {
  const res = await request(s.url).post("/admin/login").type("form").send({ token: ADMIN_TOKEN });
  expect(res.status).toBe(303);
  const cookie = String(res.headers["set-cookie"][0]).split(";")[0];
  const html = (await request(s.url).get("/admin/status/wf").set("Cookie", cookie).set("Accept", "text/html")).text;
  const formToken = /name="_formToken" value="([^"]+)"/.exec(html)?.[1];
  expect(formToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
  return { cookie, formToken: formToken!, html };
}

const disabled = async () => ((await (await s.admin("/directories/wf")).json()) as { disabled: boolean }).disabled;
/** The store is untouched by `fn` (sessions and failed-authentication counters aside). */
const unchanged = (fn: () => Promise<void>) => expectUnchanged(e.redis, e.prefix, fn, /:authfail:/);

describe("state-changing admin forms", () => {
  it("should put the session's form token in every state-changing form of the status page", async () => {
    const { html, formToken } = await signIn();
    const forms = html.match(/<form method="post"[^>]*>.*?<\/form>/gs) ?? [];
    expect(forms.length).toBeGreaterThan(3);
    for (const form of forms) expect(form).toContain(`name="_formToken" value="${formToken}"`);
  });

  it("should refuse a cross-origin POST with a signed-in cookie with 403 and change nothing, even with the token", async () => {
    const { cookie, formToken } = await signIn();
    const port = Number(new URL(s.url).port);
    const foreign: Array<Record<string, string>> = [
      { Origin: `http://127.0.0.1:${port + 1}` }, // another port of the same host
      { Origin: "https://evil.bridge.example.com" }, // a sibling subdomain of the public base URL
      { Origin: "null" }, // a sandboxed or privacy-stripped origin that does not say more
      { Origin: "null", "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" }, // no Origin, but the browser says another origin of the site
      { "Sec-Fetch-Site": "cross-site" },
    ];
    await unchanged(async () => {
      for (const headers of foreign) {
        for (const path of ["/admin/directories/wf/disable", "/admin/directories/wf/resync", "/admin/logout"]) {
          const res = await request(s.url).post(path).set({ Cookie: cookie, ...headers }).type("form").send({ _formToken: formToken });
          expect([path, headers, res.status]).toEqual([path, headers, 403]);
        }
        const del = await request(s.url).delete("/admin/directories/wf").set({ Cookie: cookie, "X-Form-Token": formToken, ...headers });
        expect(del.status).toBe(403);
      }
    });
    expect(await disabled()).toBe(false);
  });

  it("should refuse a same-origin cookie request without the session's form token with 403 and change nothing", async () => {
    const { cookie } = await signIn();
    const other = await signIn(); // another person's session: its token is not this session's
    await unchanged(async () => {
      for (const token of [undefined, "", "x".repeat(32), other.formToken]) {
        const res = await request(s.url).post("/admin/directories/wf/disable").set({ Cookie: cookie, Origin: s.url, Accept: "text/html" })
          .type("form").send(token === undefined ? {} : { _formToken: token });
        expect([token, res.status]).toEqual([token, 403]);
        expect(res.text).toContain("nothing was changed");
      }
      const json = await request(s.url).post("/admin/directories/wf/resync").set({ Cookie: cookie, Origin: s.url }).send({});
      expect(json.status).toBe(403);
      expect(json.body.error).toMatch(/nothing was changed/);
    });
  });

  it("should accept a same-origin form with the session's token", async () => {
    const { cookie, formToken } = await signIn();
    const res = await request(s.url).post("/admin/directories/wf/disable").set({ Cookie: cookie, Origin: s.url }).type("form").send({ _formToken: formToken });
    expect(res.status).toBe(303);
    expect(await disabled()).toBe(true);
    // Sec-Fetch-Site alone (no Origin) and the header form of the token also prove it
    const back = await request(s.url).post("/admin/directories/wf/enable").set({ Cookie: cookie, "Sec-Fetch-Site": "same-origin", "X-Form-Token": formToken }).type("form").send({});
    expect(back.status).toBe(303);
    expect(await disabled()).toBe(false);
    // what the page's own forms send under its `Referrer-Policy: no-referrer`
    const nullOrigin = await request(s.url).post("/admin/directories/wf/disable").set({ Cookie: cookie, Origin: "null", "Sec-Fetch-Site": "same-origin" }).type("form").send({ _formToken: formToken });
    expect(nullOrigin.status).toBe(303);
    expect(await disabled()).toBe(true);
    await s.admin("/directories/wf/enable", { method: "POST" });
    // the public base URL is the bridge's origin too
    const viaPublic = await request(s.url).post("/admin/directories/wf/disable").set({ Cookie: cookie, Origin: "https://bridge.example.com" }).type("form").send({ _formToken: formToken });
    expect(viaPublic.status).toBe(303);
    expect(await disabled()).toBe(true);
    await s.admin("/directories/wf/enable", { method: "POST" });
  });

  it("should leave requests with the Bearer admin token unaffected, whatever their Origin", async () => {
    const res = await request(s.url).post("/admin/directories/wf/disable").set({ Authorization: `Bearer ${ADMIN_TOKEN}`, Origin: "https://elsewhere.example" }).send({});
    expect(res.status).toBe(200);
    expect(await disabled()).toBe(true);
    expect((await request(s.url).post("/admin/directories/wf/enable").set("Authorization", `Bearer ${ADMIN_TOKEN}`).send({})).status).toBe(200);
    expect(await disabled()).toBe(false);
  });

  it("should let Bull Board's requests through only from the bridge's own origin", async () => {
    const { cookie } = await signIn();
    await unchanged(async () => {
      for (const headers of [{ Origin: "http://127.0.0.1:1" }, {}, { "Sec-Fetch-Site": "same-site" }] as Array<Record<string, string>>) {
        const res = await request(s.url).put("/admin/queues/api/queues/pause").set({ Cookie: cookie, ...headers });
        expect([headers, res.status]).toEqual([headers, 403]);
      }
    });
    const same = await request(s.url).get("/admin/queues/api/queues").set({ Cookie: cookie });
    expect(same.status).toBe(200);
  });

  it("should refuse a sign-in posted by another origin's page", async () => {
    const res = await request(s.url).post("/admin/login").set("Origin", "http://127.0.0.1:1").type(FORM).send({ token: ADMIN_TOKEN });
    expect(res.status).toBe(403);
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("should sign out only with the form token", async () => {
    const { cookie, formToken } = await signIn();
    expect((await request(s.url).post("/admin/logout").set({ Cookie: cookie, Origin: s.url }).type("form").send({})).status).toBe(403);
    expect((await request(s.url).get("/admin/directories").set("Cookie", cookie)).status).toBe(200);
    expect((await request(s.url).post("/admin/logout").set({ Cookie: cookie, Origin: s.url }).type("form").send({ _formToken: formToken })).status).toBe(303);
    expect((await request(s.url).get("/admin/directories").set("Cookie", cookie)).status).toBe(401);
  });
});
