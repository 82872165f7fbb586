/**
 * The dashboard's pictures of time and the replicas page in real headless Chromium, against the
 * real server (a temp SQLite file, child-process agents from test/fixtures, the built bundle): the
 * agent's run timeline, the wakeups-per-minute and cost charts of the Runs page, the replicas page
 * and the agent's replica, with no console error on any of them. One page load; the tests run in
 * order and click through as a person would.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { launchChromium, NO_BROWSER, recordPageErrors } from './chromium.js';

const SHOTS = join(process.cwd(), 'test-results', 'dashboard');
const UI_TIMEOUT = 10_000;
/** The failure colour of the charts (dashboard/src/chart/colors.ts). */
const FAILURE_COLOUR = '#b42318';

let h: Harness;
let browser: Browser;
let page: Page;
let workspaceId: string;
let flakyId: string;
let steadyId: string;
let pageErrors: string[] = [];

async function shot(name: string) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function nav(label: string) {
  await page.locator('header.top nav').getByRole('link', { name: label, exact: true }).click();
}

async function wakeAndSettle(agentId: string) {
  const wakeup = (await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'charts' })).body.wakeup;
  await h.waitFor(async () => (await h.api('GET', `/api/office/wakeups/${wakeup.id}`)).body.status === 'finished', 'the wakeup to finish');
}

describe.skipIf(NO_BROWSER)('charts and replicas in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    workspaceId = (await h.api('POST', '/api/office/workspaces', { name: 'Night shift' })).body.id;
    // Its first attempt fails and the retry succeeds: with one more wake, three runs, the first failed.
    flakyId = (await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Flaky', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false,
      executor: fixtureAgent('flaky.mjs', { FIXTURE_COUNTER_FILE: join(h.dir, 'flaky-attempts'), FIXTURE_FAIL_TIMES: '1', FIXTURE_COST: '0.5' }),
    })).body.id;
    steadyId = (await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Steady', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false,
      executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '0.25' }),
    })).body.id;
    await wakeAndSettle(flakyId);
    await wakeAndSettle(flakyId);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    pageErrors = recordPageErrors(page);
    await page.goto(`${h.url}/office/agents`);
    await page.getByTestId('live-indicator').and(page.getByText('live')).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('draws a bar for each of the agent\'s 3 runs on its timeline, the failed one in the failure colour; hovering shows the run, a click opens it', async () => {
    const runs: { id: string; status: string }[] = (await h.api('GET', `/api/office/runs?agent_id=${flakyId}`)).body;
    expect(runs.map((run) => run.status).sort()).toEqual(['failed', 'succeeded', 'succeeded']);
    const failed = runs.find((run) => run.status === 'failed')!;

    await page.getByRole('link', { name: 'Flaky', exact: true }).click();
    const timeline = page.getByTestId('run-timeline');
    const bars = timeline.locator('path.recharts-rectangle');
    await expect.poll(() => bars.count()).toBe(3);
    const drawn = await bars.evaluateAll((paths) => paths.map((p) => ({ id: p.getAttribute('data-run-id'), fill: p.getAttribute('fill') })));
    expect(drawn.map((bar) => bar.id).sort()).toEqual(runs.map((run) => run.id).sort());
    for (const bar of drawn) expect(bar.fill === FAILURE_COLOUR, `${bar.id} drawn ${bar.fill}`).toBe(bar.id === failed.id);

    const failedBar = timeline.locator(`path[data-run-id="${failed.id}"]`);
    await failedBar.hover();
    const tooltip = page.getByTestId('timeline-tooltip');
    await tooltip.getByText('failed').waitFor();
    expect(await tooltip.locator('strong').getAttribute('title')).toBe(failed.id);
    await shot('agent-timeline');

    await failedBar.click();
    await page.waitForURL(`**/office/runs/${failed.id}`);
    await page.getByRole('heading', { name: failed.id }).waitFor();
  });

  it('charts wakeups per minute by outcome and cost per day on the Runs page, and adds a wakeup as it ends', async () => {
    await nav('Runs');
    const chart = page.getByTestId('wakeups-chart');
    // Both of the flaky agent's wakeups finished (the failed attempt was retried): green bars, no other series drawn.
    await expect.poll(() => chart.locator('.series-finished path.recharts-rectangle').count()).toBeGreaterThan(0);
    expect(await chart.getAttribute('data-total-finished')).toBe('2');
    for (const outcome of ['skipped', 'coalesced', 'failed', 'cancelled']) {
      expect(await chart.locator(`.series-${outcome} path.recharts-rectangle`).count(), outcome).toBe(0);
    }
    const cost = page.getByTestId('cost-chart');
    await expect.poll(() => cost.locator('.series-cost path.recharts-rectangle').count()).toBeGreaterThan(0);
    expect(Number(await cost.getAttribute('data-total'))).toBeCloseTo(1);

    // A wakeup of another agent arrives through the live stream: no reload.
    await wakeAndSettle(steadyId);
    await expect.poll(() => chart.getAttribute('data-total-finished'), { timeout: UI_TIMEOUT }).toBe('3');
    await expect.poll(async () => Number(await cost.getAttribute('data-total')), { timeout: UI_TIMEOUT }).toBeCloseTo(1.25);

    await shot('runs-charts-hour');

    await page.getByRole('button', { name: 'Last day' }).click();
    await expect.poll(() => chart.locator('.series-finished path.recharts-rectangle').count()).toBeGreaterThan(0);
    expect(await chart.getAttribute('data-total-finished')).toBe('3');
    await shot('runs-charts-day');
  });

  it('lists this process as the one replica, with its heartbeat and the agents it runs; the agent page names it', async () => {
    const [replica] = (await h.api('GET', '/api/office/replicas')).body;
    await nav('Replicas');
    const rows = page.locator('table[aria-label="Replicas"] tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const row = page.locator(`tr[data-replica-id="${replica.id}"]`);
    expect(await row.getByTestId('agents-owned').textContent()).toBe('2');
    await row.getByTestId('heartbeat').locator('time').waitFor();
    await row.getByRole('link', { name: 'Flaky' }).waitFor();
    await row.getByRole('link', { name: 'Steady' }).waitFor();
    await shot('replicas');

    await row.getByRole('link', { name: 'Steady' }).click();
    expect(await page.getByTestId('agent-replica').textContent()).toBe(replica.id);
  });

  it('logs no console error on the charts and replicas pages', () => {
    expect(pageErrors).toEqual([]);
  });
});
