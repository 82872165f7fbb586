/**
 * `npm run screenshot`: writes docs/dashboard.png, the README's picture of the dashboard: the
 * Tasks board of the workspace `npm run demo` makes (src/cli/demo.ts), so that what a newcomer
 * sees after `npm run demo` is the picture. A scheduler of its own (a temp SQLite file, a free
 * port), the demo's seed, then the board in headless Chromium (Debian's `chromium`, as the browser
 * tests use) once the worker has done its tasks. Nothing is left running or on disk but the PNG.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ApiClient } from '../src/cli/client.js';
import { seedDemo } from '../src/cli/demo.js';
import { loadConfig } from '../src/config.js';
import { createScheduler } from '../src/scheduler.js';
import { ensureDashboard } from './ensure-dashboard.mjs';

const OUTPUT = fileURLToPath(new URL('../docs/dashboard.png', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Waits until the worker has done the board's tasks: one in DONE, one in IN REVIEW, as the demo's board says. */
async function settle(api: ApiClient, workspaceId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const states = (await api.call(api.office.GET('/api/office/tasks', { params: { query: { workspace_id: workspaceId } } }))).map((t) => t.state);
    if (states.includes('DONE') && states.includes('IN_REVIEW')) return;
    if (Date.now() > deadline) throw new Error('the demo worker did not finish its tasks within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  if (!(await ensureDashboard())) throw new Error('the dashboard could not be built (npm run build:dashboard)');
  const dir = mkdtempSync(join(tmpdir(), 'office-screenshot-'));
  const scheduler = await createScheduler({ config: loadConfig({ OFFICE_DB: join(dir, 'office.db'), OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'silent', OFFICE_COALESCE_WINDOW_MS: '200' }) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const { url } = await scheduler.start();
    const api = new ApiClient(url!, undefined);
    const { workspaceId } = await seedDemo(api);
    await settle(api, workspaceId);
    const page = await browser.newPage({ viewport: { width: 1280, height: 360 }, deviceScaleFactor: 1 });
    await page.goto(`${url}/office/tasks?workspace=${workspaceId}`);
    await page.getByTestId('live-indicator').and(page.getByText('live')).waitFor();
    await page.getByText('Publish the 2.4 release notes').waitFor();
    await page.screenshot({ path: OUTPUT });
    console.log(`wrote ${OUTPUT}`);
  } finally {
    await browser.close();
    await scheduler.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
