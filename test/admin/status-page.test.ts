/**
 * The status page as a person sees it, in headless Chromium (Debian's `chromium`, driven by playwright-core).
 * Skipped only when no Chromium is installed (CI installs it: .ci/run).
 */
import fs from "node:fs";
import { chromium, type Browser } from "playwright-core";
import { startSyncEnv, waitFor, PLATFORM_KEY, TOKENS, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const maybe = fs.existsSync(CHROMIUM) ? describe : describe.skip;
const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

maybe("status page in a browser", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  let browser: Browser;

  beforeAll(async () => {
    e = await startSyncEnv();
    s = await startBridgeServer(e);
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    // one synced workforce user, a finished resync, and one failed embed user with a platform message
    const ok = await e.scim("wf").post("/Users", userBody("fine@example.com"));
    await waitFor(async () => (await e.state.get("wf", "user", ok.body.id)).status === "synced");
    await fetch(`${e.sim.baseUrl}/v1/embed/generate-session`, {
      method: "POST", headers: { Authorization: `Api-Key ${PLATFORM_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ deploymentId: 1, externalId: "x@example.com", embedTenantName: "em-tenant", creatorMode: true, userAttributeDefinitions: [{ name: "employeeNumber", type: "string" }] }),
    });
    const bad = await e.scim("em").post("/Users", userBody("broken@example.com", { [ENT]: { employeeNumber: "9" } }));
    await waitFor(async () => (await e.state.get("em", "user", bad.body.id)).status === "failed");
    await s.admin("/directories/wf/resync", { method: "POST" });
    await waitFor(async () => ((await (await s.admin("/directories/wf/resync")).json()) as { status?: string }).status === "done");
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await e?.close();
  });

  it("should ask for the admin token, then show each directory's state, the resync progress and the failures", async () => {
    const page = await browser.newPage();
    const first = await page.goto(`${s.url}/admin/status`);
    expect(first?.status()).toBe(401);
    expect(await page.getByRole("heading", { name: "scim-bridge status" }).isVisible()).toBe(true);
    await page.getByLabel("Admin token").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("not an admin token");

    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
    const wf = page.locator("tr[data-directory=wf]");
    const em = page.locator("tr[data-directory=em]");
    expect(await wf.locator(".state").textContent()).toBe("in sync");
    expect(await em.locator(".state").textContent()).toBe("failing");
    expect(await wf.textContent()).toContain("1 synced");
    expect(await wf.locator("progress").getAttribute("value")).toBe("100");
    expect(await wf.locator(".resync-pct").textContent()).toBe("100%");
    expect(await em.getByRole("button", { name: "Retry failed" }).isVisible()).toBe(true);
    const failures = page.locator("h2:has-text('Latest failures') ~ table");
    expect(await failures.textContent()).toContain("broken@example.com");
    expect(await failures.textContent()).toContain("cannot change type");

    const headers = (await page.goto(`${s.url}/admin/status`))!.headers();
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["cache-control"]).toBe("no-store");
    await page.close();
  }, 30000);

  it("should let a signed-in operator retry the failed item from the page", async () => {
    const page = await browser.newPage();
    await page.goto(`${s.url}/admin/status`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await fetch(`${e.sim.url}/_sim/reset`, { method: "POST", headers: { "x-sim-token": "test-sim-token" } });
    await page.locator("tr[data-directory=em]").getByRole("button", { name: "Retry failed" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
    await waitFor(async () => (await e.state.counts("em")).failed === 0, 10000, "retried item synced");
    await page.reload();
    expect(await page.locator("tr[data-directory=em] .state").textContent()).not.toBe("failing");
    expect(await page.getByText("No failed items.").isVisible()).toBe(true);
    await page.close();
  }, 30000);

  it("should create a directory on the page, then follow a user's trail through a failing and a fixed sync", async () => {
    const page = await browser.newPage();
    await page.goto(`${s.url}/admin/status`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/admin/status`);

    // onboard "acme" on the page; it shares the platform account of "wf"
    await page.getByRole("link", { name: "Add a directory" }).click();
    const acme = { id: "acme", displayName: "Acme Corp", target: "workforce", platform: { baseUrl: e.sim.baseUrl, deploymentId: 1, apiKeyEnv: "TEST_PLATFORM_KEY" } };
    await page.getByLabel("The directory as a config file's directories[] entry holds it, without tokenHashes").fill(JSON.stringify(acme));
    await page.getByRole("button", { name: "Create directory" }).click();
    expect(await page.getByRole("heading", { name: "Directory acme created" }).isVisible()).toBe(true);
    const base = (await page.locator("[data-field=scim-base-url]").textContent())!;
    const token = (await page.locator("[data-field=token]").textContent())!;
    expect(base).toMatch(/^https:\/\/.+\/scim\/v2\/acme$/); // under the configured public base URL

    // the IdP of acme pushes a user that "wf" already manages on the platform: the sync fails, visibly
    const taken = await e.scim("wf").post("/Users", userBody("taken@example.com"));
    const pid = (await waitFor(async () => { const st = await e.state.get("wf", "user", taken.body.id); return st.status === "synced" ? st : undefined; })).platformId!;
    let pushed: Response | undefined;
    await waitFor(async () => {
      pushed = await fetch(`${s.url}/scim/v2/acme/Users`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/scim+json" }, body: JSON.stringify(userBody("taken@example.com")) });
      return pushed.status === 201; // the server follows the new directory within its reload interval
    }, 10000, "acme accepts its token");
    const id = ((await pushed!.json()) as { id: string }).id;
    await waitFor(async () => (await e.state.get("acme", "user", id)).status === "failed", 15000, "acme's user refused");

    // the failures table links to the item, whose timeline says why
    await page.goto(`${s.url}/admin/status`);
    await page.locator("h3:has-text('acme') + table").getByRole("link", { name: "taken@example.com" }).click();
    expect(await page.getByRole("heading", { name: /user taken@example.com/ }).isVisible()).toBe(true);
    expect(await page.locator("table.sync .state").textContent()).toBe("failed");
    const timeline = page.locator("ol.timeline");
    expect(await timeline.locator("li[data-type=idp]").first().textContent()).toContain("IdP POST");
    expect(await timeline.locator("li[data-type=failed]").first().textContent()).toContain('managed by directory "wf"');

    // the operator hands the user over; the same page then shows the fixed sync on top of the failure
    const handed = await s.admin("/ownership/handover", { method: "POST", body: JSON.stringify({ space: "u", resource: pid, to: "acme", from: "wf" }) });
    expect([handed.status, handed.status === 200 ? "" : await handed.text()]).toEqual([200, ""]);
    await waitFor(async () => (await e.state.get("acme", "user", id)).status === "synced", 15000, "acme's user synced after the hand-over");
    await page.reload();
    expect(await page.locator("table.sync .state").textContent()).toBe("synced");
    expect(await timeline.locator("li[data-type=call]").count()).toBeGreaterThan(0);
    expect(await timeline.locator("li[data-type=failed]").count()).toBeGreaterThan(0); // the history stays

    // and the search of the directory finds it
    await page.goto(`${s.url}/admin/status/acme/search?q=taken`);
    expect(await page.getByRole("link", { name: /taken@example.com/ }).count()).toBeGreaterThan(0);
    await page.close();
  }, 60000);

  it("should delete a disabled directory from the page, deprovisioning only after the operator confirms the listed items", async () => {
    const page = await browser.newPage();
    await page.goto(`${s.url}/admin/status`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
    const acme = page.locator("tr[data-directory=acme]");
    expect(await acme.getByRole("link", { name: "Delete…" }).count()).toBe(0); // enabled: no delete
    await acme.getByRole("button", { name: "Disable" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
    await acme.getByRole("link", { name: "Delete…" }).click();
    expect(await page.getByRole("heading", { name: "Delete directory acme" }).isVisible()).toBe(true);
    await page.getByLabel(/Deprovision them/).check();
    await page.getByLabel("Your name, for the audit").fill("Pat Page");
    await page.getByRole("button", { name: "Delete directory" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
    const held = page.locator("section[data-awaiting=acme]");
    await held.waitFor();
    expect(await held.getByRole("heading").textContent()).toBe("acme: delete awaits confirmation");
    expect(await held.textContent()).toContain("taken@example.com");
    const taken = async () => (await e.simState()).scim.users.find((u) => u.userName === "taken@example.com");
    expect((await taken())?.active).not.toBe(false); // nothing deprovisioned before the answer

    await acme.getByRole("button", { name: "Confirm: deprovision and delete" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
    await waitFor(async () => (await s.admin("/directories/acme")).status === 404, 30000, "acme deleted");
    expect((await taken())?.active).toBe(false);
    await page.reload();
    expect(await page.locator("tr[data-directory=acme]").count()).toBe(0);
    await page.close();
  }, 60000);

  it("should list a directory's SCIM requests, filter them, and show one with its bodies, the password redacted", async () => {
    const created = await fetch(`${s.url}/scim/v2/wf/Users`, { method: "POST", headers: { Authorization: `Bearer ${TOKENS.wf}`, "Content-Type": "application/scim+json", "X-Request-Id": "page-req-1" },
      body: JSON.stringify(userBody("requests.page@example.com", { password: "Page-Secret-991" })) });
    expect(created.status).toBe(201);
    await fetch(`${s.url}/scim/v2/wf/Users`, { headers: { Authorization: "Bearer wrong-token", "X-Request-Id": "page-req-2" } });
    await waitFor(async () => (await s.admin("/directories/wf/requests/page-req-2")).status === 200);
    const page = await browser.newPage();
    await page.goto(`${s.url}/admin/status`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
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
    await page.close();
  }, 30000);

  it("should keep bull-board behind the same sign-in", async () => {
    expect((await fetch(`${s.url}/admin/queues`, { redirect: "manual", headers: { Accept: "text/html" } })).status).toBe(303);
    expect((await fetch(`${s.url}/admin/queues`)).status).toBe(401);
    const res = await fetch(`${s.url}/admin/queues`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/bull/i);
  });
});
