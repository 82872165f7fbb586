/**
 * No console errors on any page (issue 17). Real Chromium against the real server with
 * OFFICE_API_TOKEN set: the sign-in form, the empty state of a fresh install, then every page the
 * navigation bar links to (read from the bar itself, so a page added there is covered without
 * touching this file) and every detail page, each opened with a full page load. Any console error
 * (a failed request included: Chromium logs it as one) or uncaught exception fails the test.
 * Detail pages are listed in DETAIL_PAGES (seed.ts): add a new one there.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { startHarness, type Harness } from '../helpers/harness.js';
import { launchChromium, NO_BROWSER, recordPageErrors, waitSettled, newDesktopPage } from './chromium.js';
import { DETAIL_PAGES, seedOffice } from './seed.js';

const TOKEN = 'console-errors-token-51ae';
const BEARER = { authorization: `Bearer ${TOKEN}` };
const SHOTS = join(process.cwd(), 'test-results', 'dashboard', 'pages');
const UI_TIMEOUT = 15_000;
/** Some seventeen full page loads, each waiting for the stream: about 25 s alone, more on a busy machine. */
const WALK_TIMEOUT_MS = 60_000;

let h: Harness;
let browser: Browser;
let page: Page;
let errors: string[];

const settled = () => waitSettled(page, UI_TIMEOUT);

async function open(path: string, shot: string) {
  await page.goto(`${h.url}${path}`);
  await settled();
  await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
}

describe.skipIf(NO_BROWSER)('every dashboard page in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    browser = await launchChromium();
    page = await newDesktopPage(browser, UI_TIMEOUT);
    errors = recordPageErrors(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('opens the sign-in form, the empty state, every page in the navigation and every detail page without a console error', async () => {
    await page.goto(`${h.url}/`);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.waitFor();
    await form.getByLabel('API token').fill(TOKEN);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await settled();
    await open('/office/tasks', 'empty-state');

    const seeded = await seedOffice(h, BEARER);
    await open('/office/routines', 'first');
    const navigation = await page.locator('header.top nav a').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(navigation.length).toBeGreaterThanOrEqual(8);
    const pages: Array<[string, string]> = [...navigation.map((path): [string, string] => [path, path.split('/').pop()!]), ...DETAIL_PAGES(seeded)];
    for (const [path, shot] of pages) await open(path, shot);

    expect(errors).toEqual([]);
  }, WALK_TIMEOUT_MS);
});
