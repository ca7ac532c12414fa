/**
 * The status pages as a person sees them, in headless Chromium (test/helpers/browser.ts): the compact
 * overview, a directory's page whose figures refresh in place while a person types, the message after an
 * action, a dry run's whole plan, the pages at 1,024 px and on a phone, Bull Board's shards by name, and
 * nothing fetched from outside (any request off 127.0.0.1 fails the test). Screenshots in the test output.
 */
import type { Browser, Page } from "playwright-core";
import { startSyncEnv, waitFor, PLATFORM_KEY, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";
import { guardedPage, launchChromium, screenshot, signIn, withChromium, type Outside } from "../helpers/browser";

const ENT = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const SUITE = "status-page";

withChromium("status pages in a browser", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  let browser: Browser;
  const outside: Outside = [];
  const open = async (viewport?: { width: number; height: number }): Promise<Page> => {
    const page = await guardedPage(browser, outside, viewport);
    await signIn(page, s.url);
    return page;
  };

  beforeAll(async () => {
    e = await startSyncEnv();
    s = await startBridgeServer(e);
    browser = await launchChromium();
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

  afterEach(() => {
    expect(outside).toEqual([]); // nothing fetched from outside the machine
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await e?.close();
  });

  it("should ask for the admin token, then show a compact overview linking to each directory", async () => {
    const page = await guardedPage(browser, outside);
    const first = await page.goto(`${s.url}/admin/status`);
    expect(first?.status()).toBe(401);
    await page.getByLabel("Admin token").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("not an admin token");
    await signIn(page, s.url);
    expect(await page.locator("tr[data-directory=wf] .state").textContent()).toBe("in sync");
    expect(await page.locator("tr[data-directory=em] .state").textContent()).toBe("failing");
    expect(await page.locator("li[data-attention=em]").textContent()).toBe("em: 1 failed item(s)");
    await screenshot(page, SUITE, "overview");

    const res = (await page.goto(`${s.url}/admin/status`))!;
    const csp = res.headers()["content-security-policy"]!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(res.headers()["x-frame-options"]).toBe("DENY");
    expect((await res.body()).length).toBeLessThan(20_000); // the overview holds no charts
    await page.locator("tr[data-directory=wf] a").first().click();
    await page.waitForURL(`${s.url}/admin/status/wf`);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain("wf");
    expect(await page.locator("[data-fact=resync] progress").getAttribute("value")).toBe("100");
    await page.close();
  }, 30000);

  it("should refresh a directory's figures in place, keeping what a person types, and say what an action did", async () => {
    const page = await open();
    await page.goto(`${s.url}/admin/status/em`);
    expect(await page.locator("[data-fact=state] .state").textContent()).toBe("failing");
    expect(await page.locator("table.failures").textContent()).toContain("cannot change type");
    await page.evaluate(() => { (window as unknown as { marker: number }).marker = 42; }); // gone if the page reloads
    const search = page.getByLabel("Find in em");
    await search.fill("half-typed na");
    await page.evaluate(() => window.scrollTo(0, 200));

    // the platform is fixed and the item retried behind the page's back: the page follows without a reload
    await fetch(`${e.sim.url}/_sim/reset`, { method: "POST", headers: { "x-sim-token": "test-sim-token" } });
    const r = await s.admin("/directories/em/retry", { method: "POST" });
    expect(r.status).toBe(200);
    await waitFor(async () => (await e.state.counts("em")).failed === 0, 15000, "retried item synced");
    await page.locator("[data-fact=state] .state:not(.failing)").waitFor({ timeout: 15000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(Number(await page.locator("body").getAttribute("data-refreshed"))).toBeGreaterThan(0);
    expect(await search.inputValue()).toBe("half-typed na");
    expect(await search.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByText("No failed items.").isVisible()).toBe(true);
    await screenshot(page, SUITE, "directory-refreshed");
    // a refresh without the charts (all but one a minute) carries only the figures
    const light = (await (await s.admin("/live/em?charts=0")).json()) as { regions: Record<string, string> };
    const full = (await (await s.admin("/live/em")).json()) as { regions: Record<string, string> };
    expect(Object.keys(light.regions)).not.toContain("charts");
    expect(full.regions.charts).toContain("<svg");
    expect(JSON.stringify(light).length).toBeLessThan(JSON.stringify(full).length / 4);

    // an action from the page: the page it leads to says what was done
    await page.getByRole("button", { name: "Dry run" }).click();
    await page.waitForURL((u) => u.pathname === "/admin/status/em");
    expect(await page.locator("[data-notice]").textContent()).toMatch(/^Dry run of em queued/);
    expect(await page.locator("[data-notice]").getAttribute("role")).toBe("status");
    // a message in the address that the bridge did not sign is not shown
    await page.goto(`${s.url}/admin/status/em?notice=Call+0800&kind=ok&sig=forged`);
    expect(await page.locator("[data-notice]").count()).toBe(0);
    await page.close();
  }, 60000);

  it("should list a dry run's planned changes item by item", async () => {
    // users the platform lost (its state wiped): the plan creates them again
    const u = await e.scim("wf").post("/Users", userBody("planned@example.com"));
    await waitFor(async () => (await e.state.get("wf", "user", u.body.id)).status === "synced");
    await fetch(`${e.sim.url}/_sim/reset`, { method: "POST", headers: { "x-sim-token": "test-sim-token" } });
    const page = await open();
    await page.goto(`${s.url}/admin/status/wf`);
    await page.getByRole("button", { name: "Dry run" }).click();
    await page.waitForURL((u2) => u2.pathname === "/admin/status/wf");
    // the plan appears in place once a worker computed it
    const link = page.locator("section[data-plan=wf] a[data-plan-list=create]");
    await link.waitFor({ timeout: 20000 });
    await link.click();
    await page.waitForURL(/\/admin\/status\/wf\/plan\?list=create/);
    expect(await page.locator("h2[data-list=create]").textContent()).toMatch(/^To create: 1–\d+ of \d+$/);
    expect(await page.locator("table").textContent()).toContain("planned@example.com");
    await screenshot(page, SUITE, "dry-run-plan");
    await page.close();
  }, 60000);

  it("should say 'platform unreachable since' and how old the oldest waiting change is, in place, while the platform does not answer", async () => {
    const page = await open();
    e.sim.setFaults({ outage: { forSeconds: 600, mode: "drop" } });
    try {
      await e.scim("wf").post("/Users", userBody("outage.page@example.com"));
      // the overview follows without a reload
      await page.locator("tr[data-directory=wf] td:nth-child(2) .state.platform-unreachable").waitFor({ timeout: 20000 });
      expect(await page.locator("li[data-attention=wf]", { hasText: "platform" }).textContent()).toMatch(/platform unreachable since \d{4}-/);
      await page.goto(`${s.url}/admin/status/wf`);
      expect(await page.locator("[data-fact=state] .state").textContent()).toBe("platform unreachable");
      expect(await page.locator("[data-fact=platform]").textContent()).toMatch(/^unreachable since/);
      expect(await page.locator("[data-fact=lag]").textContent()).toMatch(/^the oldest waiting change is .+ old .*; [1-9]\d* waiting$/);
      await screenshot(page, SUITE, "platform-unreachable");
    } finally {
      e.sim.setFaults({ outage: null });
    }
    await page.locator("[data-fact=state] .state:not(.platform-unreachable)").waitFor({ timeout: 30000 });
    await page.close();
  }, 60000);

  it("should fit a phone and a 1,024 px screen without sideways scrolling of the page", async () => {
    for (const [name, viewport] of [["phone", { width: 390, height: 844 }], ["1024", { width: 1024, height: 768 }]] as const) {
      const page = await open(viewport);
      for (const path of ["/admin/status", "/admin/status/wf", "/admin/status/new"]) {
        await page.goto(`${s.url}${path}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect([name, path, overflow <= 1]).toEqual([name, path, true]);
      }
      await page.goto(`${s.url}/admin/status/wf`);
      await screenshot(page, SUITE, `directory-${name}`);
      await page.close();
    }
  }, 60000);

  it("should show every queue shard in Bull Board by its own name, fetching nothing from outside", async () => {
    const page = await open();
    await page.goto(`${s.url}/admin/queues`);
    for (let n = 0; n < 4; n++) await page.getByText(`sync shard ${n} of 4`).first().waitFor({ timeout: 15000 });
    await screenshot(page, SUITE, "bull-board");
    const html = await (await fetch(`${s.url}/admin/queues`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
    expect(html).not.toMatch(/fonts\.googleapis|https?:\/\/(?!127\.0\.0\.1)/);
    await page.close();
  }, 30000);
});
