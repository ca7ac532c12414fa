/**
 * The admin pages in a real browser: Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium) driven by
 * playwright-core. Every page opened here fails its test on a request to anything but the bridge and the
 * simulator on 127.0.0.1 (nothing is fetched from outside: no fonts, no scripts), and screenshots go to the
 * test output folder, TEST_OUTPUT_DIR (default .data/test-output), one folder per suite.
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ADMIN_TOKEN } from "./bridge-server";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** `describe`, or `describe.skip` where no Chromium is installed (CI installs it: .ci/run). */
export const withChromium = fs.existsSync(CHROMIUM) ? describe : describe.skip;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** Requests a page made to another host than 127.0.0.1 / localhost (aborted, and listed). */
export type Outside = string[];

/** A new page (optionally sized) whose requests outside the machine are aborted and recorded in `outside`. */
export async function guardedPage(browser: Browser, outside: Outside, viewport?: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage(viewport ? { viewport } : {});
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    const local = url.protocol === "data:" || url.protocol === "about:" || ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
    if (local) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  return page;
}

/** Signs in on the status page; ends on the overview. */
export async function signIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/admin/status`);
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${base}/admin/status`);
}

/** Saves a full-page screenshot as <TEST_OUTPUT_DIR>/<suite>/<name>.png. */
export async function screenshot(page: Page, suite: string, name: string): Promise<string> {
  const dir = path.resolve(process.env.TEST_OUTPUT_DIR ?? ".data/test-output", suite);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
