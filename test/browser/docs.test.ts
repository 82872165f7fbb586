/**
 * The API reference page (/docs) in real Chromium against the real server with OFFICE_API_TOKEN
 * set: public like /openapi.json, it renders every operation of the served document, with no
 * console error and with every request going to this server (no CDN, no validator badge).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { launchChromium, NO_BROWSER, recordPageErrors, newDesktopPage } from './chromium.js';

const TOKEN = 'docs-page-token-5d1e';
const SHOTS = join(process.cwd(), 'test-results', 'docs');
const UI_TIMEOUT = 15_000;

let h: Harness;
let browser: Browser;
let page: Page;
let errors: string[];
/** Every URL the page requested. */
const requested: string[] = [];

/** "METHOD /path" for every operation of the served document. */
async function documentedOperations(): Promise<string[]> {
  const document = (await h.api('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
}

describe.skipIf(NO_BROWSER)('the API reference page in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    browser = await launchChromium();
    page = await newDesktopPage(browser, UI_TIMEOUT, (context) => context.on('request', (request) => requested.push(request.url())));
    errors = recordPageErrors(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('renders every operation of the document, needing no token, and loads nothing from elsewhere', async () => {
    const operations = await documentedOperations();
    expect(operations).toContain('POST /api/office/agents/{id}/wake');
    await page.goto(`${h.url}/docs`);

    const wake = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/api/office/agents/{id}/wake"]') })
      .filter({ has: page.locator('.opblock-summary-method', { hasText: 'POST' }) });
    await wake.waitFor();
    await expect.poll(() => page.locator('.opblock').count(), { timeout: UI_TIMEOUT }).toBe(operations.length);
    const rendered = await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) =>
      `${block.querySelector('.opblock-summary-method')?.textContent ?? ''} ${block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? ''}`));
    expect(rendered.sort()).toEqual([...operations].sort());

    // An operation opens on its description, from the zod schemas.
    await wake.locator('.opblock-summary').click();
    await wake.getByText('Wake an agent').first().waitFor();
    await wake.locator('.responses-wrapper').getByText('202', { exact: true }).first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'docs.png'), fullPage: false });

    expect(errors).toEqual([]);
    const origin = new URL(h.url).origin;
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
  }, 60_000);
});
