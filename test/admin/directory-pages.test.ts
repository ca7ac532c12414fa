/**
 * A directory's life on the status pages, in headless Chromium (test/helpers/browser.ts): made with the
 * guided form (a problem shown next to its field), a user's trail through a failing and a fixed sync,
 * the SCIM request log linked both ways with that trail, and the delete that deprovisions only after the
 * operator confirms the listed items. Any request off 127.0.0.1 fails the test; screenshots in the test output.
 */
import type { Browser, Page } from "playwright-core";
import { startSyncEnv, waitFor, PLATFORM_KEY, TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { guardedPage, launchChromium, screenshot, signIn, withChromium, type Outside } from "../helpers/browser";

const SUITE = "directory-pages";

withChromium("a directory's pages in a browser", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  let browser: Browser;
  const outside: Outside = [];
  let id = ""; // acme's user, whose sync fails, then is fixed
  let pid = ""; // its platform id, managed by wf
  const open = async (): Promise<Page> => {
    const page = await guardedPage(browser, outside);
    await signIn(page, s.url);
    return page;
  };

  // explain and sync-now call the platform from the server process, with the directory's key variable
  const savedKey = process.env.TEST_PLATFORM_KEY;

  beforeAll(async () => {
    process.env.TEST_PLATFORM_KEY = PLATFORM_KEY;
    e = await startSyncEnv();
    s = await startBridgeServer(e);
    browser = await launchChromium();
  }, 60000);
  afterEach(() => { expect(outside).toEqual([]); });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await e?.close();
    if (savedKey === undefined) delete process.env.TEST_PLATFORM_KEY; else process.env.TEST_PLATFORM_KEY = savedKey;
  });

  it("should create a directory with the guided form, see why a user's sync fails, and go from its trail to its SCIM request and back", async () => {
    const page = await open();
    await page.getByRole("link", { name: "Add a directory" }).click();
    await page.getByLabel("Id", { exact: true }).fill("Acme Corp");
    await page.getByLabel("Display name").fill("Acme Corp");
    await page.getByLabel("Platform base URL").fill(e.sim.baseUrl);
    await page.getByLabel("Deployment id").fill("1");
    await page.getByLabel("API key variable").fill("TEST_PLATFORM_KEY");
    await page.getByRole("button", { name: "Create directory" }).click();
    // the schema's message next to the field, the field marked, what was typed kept
    const idError = page.locator("[data-error-for=id]");
    expect(await idError.textContent()).toMatch(/lower-case letters, digits and '-'/);
    expect(await page.getByLabel("Id", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Platform base URL").inputValue()).toBe(e.sim.baseUrl);
    expect(await page.locator("[data-error-for]").count()).toBe(1);
    await screenshot(page, SUITE, "add-directory-field-error");
    await page.getByLabel("Id", { exact: true }).fill("acme");
    await page.getByRole("button", { name: "Create directory" }).click();
    expect(await page.getByRole("heading", { name: "Directory acme created" }).isVisible()).toBe(true);
    const base = (await page.locator("[data-field=scim-base-url]").textContent())!;
    const token = (await page.locator("[data-field=token]").textContent())!;
    expect(base).toMatch(/^https:\/\/.+\/scim\/v2\/acme$/); // under the configured public base URL

    // the IdP of acme pushes a user that "wf" already manages on the platform: the sync fails, visibly
    const taken = await e.scim("wf").post("/Users", userBody("taken@example.com"));
    pid = (await waitFor(async () => { const st = await e.state.get("wf", "user", taken.body.id); return st.status === "synced" ? st : undefined; })).platformId!;
    let pushed: Response | undefined;
    await waitFor(async () => {
      pushed = await fetch(`${s.url}/scim/v2/acme/Users`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json", "X-Request-Id": "acme-push-1" }, body: JSON.stringify(userBody("taken@example.com")) });
      return pushed.status === 201; // the server follows the new directory within its reload interval
    }, 10000, "acme accepts its token");
    id = ((await pushed!.json()) as { id: string }).id;
    await waitFor(async () => (await e.state.get("acme", "user", id)).status === "failed", 15000, "acme's user refused");

    // the directory's failures link to the item, whose timeline says why
    await page.goto(`${s.url}/admin/status/acme`);
    await page.locator("table.failures").getByRole("link", { name: "taken@example.com" }).click();
    expect(await page.getByRole("heading", { name: /user taken@example.com/ }).isVisible()).toBe(true);
    expect(await page.locator("table.sync .state").textContent()).toBe("failed");
    const timeline = page.locator("ol.timeline");
    expect(await timeline.locator("li[data-type=idp]").first().textContent()).toContain("IdP POST");
    expect(await timeline.locator("li[data-type=failed]").first().textContent()).toContain('managed by directory "wf"');

    // "why isn't it synced?": the blocker in words and what clears it, from one platform read
    await page.locator("a[data-explain]").click();
    await page.waitForURL(new RegExp(`/admin/status/acme/users/${id}/explain$`));
    const blocker = page.locator("section[data-blocker]");
    expect(await blocker.getAttribute("data-blocker")).not.toBe("in-sync");
    expect(await blocker.textContent()).toContain("wf");
    expect(await blocker.textContent()).toContain("What clears it:");
    await screenshot(page, SUITE, "explain");
    await page.goBack();

    // the IdP's event leads to its request in the log, which leads back to the trail
    await timeline.locator("li[data-type=idp] a[data-request-link=acme-push-1]").click();
    await page.waitForURL(`${s.url}/admin/status/acme/requests/acme-push-1`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("POST /scim/v2/acme/Users — 201");
    await page.locator("a[data-trail-link]").click();
    await page.waitForURL(new RegExp(`/admin/status/acme/users/${id}$`));
    await page.close();
  }, 90000);

  it("should show the fixed sync on top of the failure, and sync the user now step by step", async () => {
    const page = await open();
    await page.goto(`${s.url}/admin/status/acme/users/${id}`);
    const timeline = page.locator("ol.timeline");
    // the operator hands the user over; the same page then shows the fixed sync on top of the failure
    const handed = await s.admin("/ownership/handover", { method: "POST", body: JSON.stringify({ space: "u", resource: pid, to: "acme", from: "wf" }) });
    expect([handed.status, handed.status === 200 ? "" : await handed.text()]).toEqual([200, ""]);
    await waitFor(async () => (await e.state.get("acme", "user", id)).status === "synced", 15000, "acme's user synced after the hand-over");
    await page.reload();
    expect(await page.locator("table.sync .state").textContent()).toBe("synced");
    // sync now (once the user's own job has freed its slot: a run meanwhile is refused): each step's result
    await waitFor(async () => (await e.runtime!.queues.admission.depth("acme")).admitted === 0, 15000, "acme's job done");
    await page.locator("form[data-sync-now] button").click();
    await page.waitForURL(new RegExp(`/admin/status/acme/users/${id}/sync-now$`));
    expect(await page.locator("[data-outcome]").getAttribute("data-outcome")).not.toBe("error");
    expect(await page.locator("ol[data-steps] li").count()).toBeGreaterThan(0);
    await screenshot(page, SUITE, "sync-now");
    await page.goto(`${s.url}/admin/status/acme/users/${id}`);
    expect(await timeline.locator("li[data-type=call]").count()).toBeGreaterThan(0);
    expect(await timeline.locator("li[data-type=failed]").count()).toBeGreaterThan(0); // the history stays
    await page.goto(`${s.url}/admin/status/acme/search?q=taken`);
    expect(await page.getByRole("link", { name: /taken@example.com/ }).count()).toBeGreaterThan(0);
    await page.close();
  }, 90000);

  it("should delete a disabled directory from its page, deprovisioning only after the operator confirms the listed items", async () => {
    const page = await open();
    await page.goto(`${s.url}/admin/status/acme`);
    expect(await page.getByRole("link", { name: "Delete…" }).count()).toBe(0); // enabled: no delete
    await page.getByRole("button", { name: "Disable" }).click();
    await page.waitForURL((u) => u.pathname === "/admin/status/acme");
    expect(await page.locator("[data-notice]").textContent()).toMatch(/^acme disabled: SCIM answers 403/);
    await page.getByRole("link", { name: "Delete…" }).click();
    expect(await page.getByRole("heading", { name: "Delete directory acme" }).isVisible()).toBe(true);
    await page.getByLabel(/Deprovision them/).check();
    await page.getByLabel("Your name, for the audit").fill("Pat Page");
    await page.getByRole("button", { name: "Delete directory" }).click();
    await page.waitForURL((u) => u.pathname === "/admin/status/acme");
    expect(await page.locator("[data-notice]").textContent()).toMatch(/^Delete of acme/);
    const held = page.locator("section[data-awaiting=acme]");
    await held.waitFor({ timeout: 20000 }); // the plan shows in place once a worker has listed the platform side
    expect(await held.getByRole("heading").textContent()).toBe("acme: delete awaits confirmation");
    expect(await held.textContent()).toContain("taken@example.com");
    const taken = async () => (await e.simState()).scim.users.find((u) => u.userName === "taken@example.com");
    expect((await taken())?.active).not.toBe(false); // nothing deprovisioned before the answer
    await screenshot(page, SUITE, "delete-awaiting-confirmation");

    await page.getByRole("button", { name: "Confirm: deprovision and delete" }).click();
    await page.waitForURL((u) => u.pathname === "/admin/status/acme");
    expect(await page.locator("[data-notice]").textContent()).toMatch(/^Confirmed: \d+ item\(s\) of acme are deprovisioned now/);
    await waitFor(async () => (await s.admin("/directories/acme")).status === 404, 30000, "acme deleted");
    expect((await taken())?.active).toBe(false);
    await page.goto(`${s.url}/admin/status`);
    expect(await page.locator("tr[data-directory=acme]").count()).toBe(0);
    await page.close();
  }, 60000);

  it("should list a directory's SCIM requests, filter them, and show one with its bodies, the password redacted", async () => {
    const created = await fetch(`${s.url}/scim/v2/wf/Users`, { method: "POST", headers: { Authorization: `Bearer ${TOKENS.wf}`, "Content-Type": "application/scim+json", "X-Request-Id": "page-req-1" },
      body: JSON.stringify(userBody("requests.page@example.com", { password: "Page-Secret-991" })) });
    expect(created.status).toBe(201);
    await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { Authorization: "Bearer wrong-token", "X-Request-Id": "page-req-2" } });
    await waitFor(async () => (await s.admin("/directories/wf/requests/page-req-2")).status === 200);
    const page = await open();
    await page.goto(`${s.url}/admin/status/wf`);
    await page.locator("a[data-requests=wf]").click();
    await page.waitForURL(`${s.url}/admin/status/wf/requests`);
    expect(await page.locator("tr[data-request=page-req-1]").textContent()).toContain("201");
    expect(await page.locator("tr[data-request=page-req-2]").textContent()).toContain("unknown token");
    await page.getByLabel("Status").fill("401");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=401/);
    expect(await page.locator("tr[data-request=page-req-1]").count()).toBe(0);
    expect(await page.locator("tr[data-request=page-req-2]").count()).toBe(1);
    await page.goto(`${s.url}/admin/status/wf/requests`);
    await page.locator("tr[data-request=page-req-1] a").first().click();
    await page.waitForURL(`${s.url}/admin/status/wf/requests/page-req-1`);
    const detail = await page.locator("body").textContent();
    expect(detail).toContain("requests.page@example.com");
    expect(detail).toContain("[redacted]");
    expect(detail).not.toContain("Page-Secret-991");
    await screenshot(page, SUITE, "request-detail");
    await page.close();
  }, 30000);
});
