/**
 * What the browser tests share: Debian's chromium driven by playwright-core, a record of what a
 * page says is wrong (console errors, uncaught exceptions) so a test can require it to be silent,
 * and the steps of a walk through the app on one page load (the navigation bar, a mark that tells
 * a reload apart, full-page screenshots).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Skipped on a machine without chromium, except in CI, where .ci/run installs it and a skip would hide a gap. */
export const NO_BROWSER = !existsSync(CHROMIUM) && !process.env.CI;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

/** The window every dashboard test looks through. */
export const DESKTOP_VIEWPORT = { width: 1280, height: 860 };

/** A page in a fresh desktop-sized context, with `timeout` for every step; `watch` sees the context first (its requests). */
export async function newDesktopPage(browser: Browser, timeout: number, watch?: (context: BrowserContext) => void): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP_VIEWPORT });
  watch?.(context);
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  return page;
}

/** Every console error and uncaught exception of `page`, with the URL it happened on. */
export function recordPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: console.error: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught: ${error.message}`));
  return errors;
}

/** Navigates inside the app with a click on the navigation bar, never reloading the page. A string names a link exactly. */
export async function clickNav(page: Page, label: string | RegExp): Promise<void> {
  await page.locator('header.top nav').getByRole('link', { name: label, exact: typeof label === 'string' }).click();
}

/** Loads the app at `url`, marks the load (see `loadedOnce`), and waits until the live stream is on. */
export async function openLive(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await markLoaded(page);
  await page.getByTestId('live-indicator').and(page.getByText('live')).waitFor();
}

/** A page is settled when the stream is live and nothing on it is still loading. */
export async function waitSettled(page: Page, timeout: number): Promise<void> {
  await page.getByTestId('live-indicator').and(page.getByText('live')).waitFor({ timeout });
  await expect.poll(() => page.locator('main').getByText(/^Loading\b/).count(), { timeout }).toBe(0);
}

type Marked = { __loadedOnce?: boolean };

/** Marks the loaded page: a reload would lose the mark, so `loadedOnce` can tell one happened. */
async function markLoaded(page: Page): Promise<void> {
  await page.evaluate(() => { (globalThis as unknown as Marked).__loadedOnce = true; });
}

/** Whether the page is still the one `markLoaded` marked: everything since happened with no reload. */
export function loadedOnce(page: Page): Promise<boolean> {
  return page.evaluate(() => (globalThis as unknown as Marked).__loadedOnce === true);
}

export async function fullShot(page: Page, dir: string, name: string): Promise<void> {
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
