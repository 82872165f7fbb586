/**
 * axe-core on every page of the dashboard, in real Chromium against the real server with
 * OFFICE_API_TOKEN set and realistic data (seed.ts): the sign-in form, the empty state of a fresh
 * install, the first agent's form, every page the navigation bar links to (read from the bar, so a
 * new page there is covered), every detail page with a run's tabs, the page for an unknown
 * address, and the dialogs that create things. Each is opened with a full page load and checked
 * once it has settled; any violation fails the test, which prints each offending node with its
 * rule, its CSS path and how to fix it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { startHarness, type Harness } from '../helpers/harness.js';
import { axeFindings, describeFindings } from './axe.js';
import { launchChromium, NO_BROWSER, waitSettled, newDesktopPage } from './chromium.js';
import { DETAIL_PAGES, seedOffice } from './seed.js';

const TOKEN = 'accessibility-token-8f3a';
const BEARER = { authorization: `Bearer ${TOKEN}` };
const UI_TIMEOUT = 15_000;
/** Some twenty-five full page loads, each waiting for the stream and then for axe: about 60 s on a busy 2-core machine. */
const WALK_TIMEOUT_MS = 180_000;

let h: Harness;
let browser: Browser;
let page: Page;
/** Every violation found so far, one line per node: all pages are walked before the test fails, so one run lists them all. */
const findings: string[] = [];

async function check(where: string): Promise<void> {
  findings.push(...describeFindings(where, await axeFindings(page)));
}

async function openAndCheck(path: string): Promise<void> {
  await page.goto(`${h.url}${path}`);
  await waitSettled(page, UI_TIMEOUT);
  await check(path);
}

describe.skipIf(NO_BROWSER)('accessibility of every dashboard page (axe-core in Chromium)', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    browser = await launchChromium();
    page = await newDesktopPage(browser, UI_TIMEOUT);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('finds no violation on any page', async () => {
    await page.goto(`${h.url}/`);
    const form = page.getByRole('form', { name: 'Sign in' });
    await form.waitFor();
    await check('sign-in form');
    await form.getByLabel('API token').fill(TOKEN);
    await form.getByRole('button', { name: 'Sign in' }).click();
    await waitSettled(page, UI_TIMEOUT);
    await page.getByRole('heading', { name: 'Create a workspace' }).waitFor();
    await check('empty state of a fresh install');

    const starting = (await h.api('POST', '/api/office/workspaces', { name: 'Starting' }, BEARER)).body;
    await page.goto(`${h.url}/office/tasks?workspace=${starting.id}`);
    await page.getByRole('region', { name: 'Add an agent' }).waitFor();
    await waitSettled(page, UI_TIMEOUT);
    await check('first agent form');

    const seeded = await seedOffice(h, BEARER);
    // The link selects the seeded workspace, and the dashboard remembers it for the pages that follow.
    await page.goto(`${h.url}/office/tasks?workspace=${seeded.workspaceId}`);
    await waitSettled(page, UI_TIMEOUT);
    const navigation = await page.locator('header.top nav a').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(navigation.length).toBeGreaterThanOrEqual(10);
    const paths = [...navigation, ...DETAIL_PAGES(seeded).map(([path]) => path), '/office/no-such-page'];
    for (const path of paths) await openAndCheck(path);
    // A run's tabs other than the first, each a view of its own.
    await openAndCheck(`/office/runs/${seeded.runId}`);
    for (const tab of ['Result', 'Prompt', 'Context']) {
      await page.getByRole('tab', { name: tab }).click();
      await page.getByRole('tab', { name: tab, selected: true }).waitFor();
      await check(`/office/runs/${seeded.runId} (${tab} tab)`);
    }

    // The dialogs that create things, each over the page that opens it.
    const dialogs: Array<[string, string]> = [['/office/tasks', 'New task'], ['/office/routines', 'Create Routine'], ['/office/agents', 'Add an agent']];
    for (const [path, name] of dialogs) {
      await page.goto(`${h.url}${path}`);
      await waitSettled(page, UI_TIMEOUT);
      await page.getByRole('button', { name, exact: true }).click();
      await page.getByRole('dialog', { name }).waitFor();
      await check(`${path} ("${name}" dialog)`);
    }

    expect(findings).toEqual([]);
  }, WALK_TIMEOUT_MS);
});
