/**
 * The deprovision brake on the status page, in headless Chromium (skipped only when no Chromium is
 * installed): a burst of deactivations past the brake's limit shows the held users with the two answers; a
 * signed-in person's Cancel keeps them active, a later burst's Confirm applies it — both through the page's
 * real forms, form token included.
 */
import fs from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { startSyncEnv, waitFor, waitIdle, type SyncEnv } from "../helpers/sync-env";
import { startBridgeServer, ADMIN_TOKEN, type BridgeServer } from "../helpers/bridge-server";
import { userBody } from "../helpers/expect-scim";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const maybe = fs.existsSync(CHROMIUM) ? describe : describe.skip;
const PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

maybe("deprovision brake on the status page", () => {
  let e: SyncEnv;
  let s: BridgeServer;
  let browser: Browser;
  const ids: string[] = [];
  const name = (i: number) => `bp.${i}@example.com`;

  beforeAll(async () => {
    e = await startSyncEnv({ wf: { safety: { deprovisionBrake: { max: 1, percent: 100 } } } });
    s = await startBridgeServer(e);
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    for (let i = 0; i < 4; i++) ids.push((await e.scim("wf").post("/Users", userBody(name(i)))).body.id);
    await waitFor(async () => (await e.state.counts("wf")).synced === 4, 20000, "4 users synced");
    await waitIdle(e, "wf");
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await e?.close();
  });

  const active = async (i: number) => (await e.simState()).scim.users.find((u) => u.userName === name(i))?.active !== false;
  const deactivate = (i: number) => e.scim("wf").patch(`/Users/${ids[i]}`, { schemas: [PATCH], Operations: [{ op: "replace", value: { active: false } }] });

  async function signedIn(): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${s.url}/admin/status`);
    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${s.url}/admin/status`);
    await page.goto(`${s.url}/admin/status/wf`);
    return page;
  }

  it("should list the held users; Cancel keeps them active, Confirm applies a later hold", async () => {
    for (const i of [0, 1, 2]) expect((await deactivate(i)).status).toBe(200);
    await waitIdle(e, "wf");
    const deactivated: number[] = [];
    for (const i of [0, 1, 2]) if (!(await active(i))) deactivated.push(i);
    expect(deactivated).toHaveLength(1);
    const page = await signedIn();
    await page.goto(`${s.url}/admin/status`);
    expect(await page.locator("li[data-attention=wf]").first().textContent()).toContain("2 deprovision(s) held by the brake");
    await page.locator("li[data-attention=wf] a").first().click();
    await page.waitForURL(`${s.url}/admin/status/wf`);
    const section = page.locator("section[data-brake=wf]");
    expect(await section.getByRole("heading").textContent()).toBe("wf: 2 deprovision(s) held by the brake");
    for (const i of [0, 1, 2].filter((x) => !deactivated.includes(x))) expect(await section.getByText(name(i)).isVisible()).toBe(true);
    await section.getByRole("button", { name: "Cancel: keep them active" }).click();
    await page.waitForURL((u) => u.pathname === "/admin/status/wf");
    expect(await page.locator("[data-notice]").textContent()).toBe("Cancelled: 2 held deprovision(s) of wf released; those users stay active on the platform.");
    expect(await page.locator("section[data-brake=wf]").count()).toBe(0);
    await waitIdle(e, "wf");
    for (const i of [0, 1, 2].filter((x) => !deactivated.includes(x))) expect(await active(i)).toBe(true);

    expect((await deactivate(3)).status).toBe(200);
    await waitFor(async () => (await page.reload(), await page.locator("section[data-brake=wf]").count()) === 1, 20000, "the next one held");
    await page.locator("section[data-brake=wf]").getByRole("button", { name: "Confirm: apply the held deprovisions" }).click();
    await page.waitForURL((u) => u.pathname === "/admin/status/wf");
    expect(await page.locator("[data-notice]").textContent()).toMatch(/^Confirmed: 1 held deprovision\(s\) of wf are applied now\.$/);
    await waitFor(async () => !(await active(3)), 20000, "the confirmed one deactivated");
    await page.close();
  }, 60000);
});
