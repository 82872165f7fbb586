/**
 * The dashboard in real headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against the real server: a temp SQLite file, real child-process agents, the built bundle.
 * The tests run in order and share one page, as a person would click through: one page load
 * at the start, and after that every change must arrive through the live stream.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { clickNav, fullShot, loadedOnce, openLive, DESKTOP_VIEWPORT } from './chromium.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const SHOTS = join(process.cwd(), 'test-results', 'dashboard');
/** Long enough to see `active.working` in the chart, short enough for a quick suite. */
const RUN_MS = 1500;
const UI_TIMEOUT = 10_000;

let h: Harness;
let browser: Browser;
let page: Page;
let workerId: string;
let coordinatorId: string;
let workspaceId: string;
let routineId: string;

const shot = (name: string) => fullShot(page, SHOTS, name);
const nav = (label: string) => clickNav(page, label);
const stillTheSamePage = async () => expect(await loadedOnce(page)).toBe(true);

// Skipped on a machine without chromium, except in CI, where .ci/run installs it and a skip would hide a gap.
describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('dashboard in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    const ws = await h.api('POST', '/api/office/workspaces', { name: 'Acme' });
    workspaceId = ws.body.id;
    const coordinator = await h.api('POST', '/api/office/agents', { workspace_id: workspaceId, name: 'Coordinator', role: 'coordinator', executor: fixtureAgent('succeed.mjs'), cooldown_sec: 0 });
    coordinatorId = coordinator.body.id;
    const worker = await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Worker', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false,
      executor: fixtureAgent('sleep.mjs', { FIXTURE_SLEEP_MS: String(RUN_MS) }),
    });
    workerId = worker.body.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    page = await browser.newPage({ viewport: DESKTOP_VIEWPORT });
    page.setDefaultTimeout(UI_TIMEOUT);
    await openLive(page, `${h.url}/office/routines`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('creates a routine through the dialog, validated with the API schema', async () => {
    await page.getByRole('button', { name: 'Create Routine' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Routine' });
    await dialog.waitFor();

    // Nothing filled in: the shared zod schema rejects it before anything is sent.
    await dialog.getByRole('button', { name: 'Create routine' }).click();
    await expect.poll(() => dialog.locator('.field.invalid').count()).toBeGreaterThan(0);
    expect(await dialog.locator('.field.invalid input[name="name"]').count()).toBe(1);

    await dialog.locator('input[name="name"]').fill('Nightly digest');
    await dialog.locator('select[name="assignee"]').selectOption({ label: 'Worker (worker)' });
    await dialog.locator('input[name="task_title"]').fill('Digest about {{topic}}');
    await dialog.locator('select[name="trigger_kind"]').selectOption('manual');
    await dialog.getByRole('button', { name: 'Add variable' }).click();
    await dialog.locator('input[name="var_name_0"]').fill('topic');
    await dialog.locator('input[name="var_required_0"]').check();
    await dialog.screenshot({ path: join(SHOTS, 'routines-create-dialog.png') });
    await dialog.getByRole('button', { name: 'Create routine' }).click();

    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('table[aria-label="Routines"] tr', { hasText: 'Nightly digest' });
    await row.waitFor();
    const routines = await h.api('GET', `/api/office/routines?workspace_id=${workspaceId}`);
    const created = routines.body.find((r: { name: string }) => r.name === 'Nightly digest');
    expect(created).toMatchObject({ status: 'active', task_template: { title: 'Digest about {{topic}}' }, variables: [{ name: 'topic', required: true }] });
    routineId = created.id;
    await shot('routines');
  });

  it('Run now asks for the required variable first, then fires', async () => {
    await page.getByRole('table', { name: 'Routines' }).getByRole('link', { name: 'Nightly digest' }).click();
    await page.getByRole('heading', { name: /Nightly digest/ }).waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();

    const modal = page.getByRole('dialog', { name: 'Run now' });
    await modal.waitFor();
    await modal.getByRole('button', { name: 'Fire routine' }).click();
    await modal.getByText('topic is required').waitFor();
    await modal.locator('input[name="topic"]').fill('billing');
    await modal.getByRole('button', { name: 'Fire routine' }).click();
    await modal.waitFor({ state: 'detached' });

    // The fire says what it did, in words, and names the task it made by its title.
    await page.getByTestId('fired').getByText('Fired: created a task: Digest about billing.').waitFor();
    const historyRow = page.locator('table[aria-label="Routine runs"] tbody tr').first();
    await historyRow.getByText('task created').waitFor();
    await historyRow.getByText('"topic":"billing"').waitFor();
    const taskLink = historyRow.getByRole('link', { name: 'Digest about billing' });
    expect(await taskLink.getAttribute('href')).toMatch(/^\/office\/tasks\/tsk_/);
    await page.getByTestId('last-run').getByText(/ UTC$/).waitFor();
    await shot('routine-detail');
    await stillTheSamePage();
  });

  it('shows the resulting wakeup and run as they happen, without a reload', async () => {
    await nav('Wakeups');
    const wakeups = page.locator('table[aria-label="Wakeups"] tbody tr');
    await wakeups.first().waitFor();
    // The fire from the previous test ends as a finished wakeup whose explain names its run, by a short id that copies the whole.
    const finished = page.locator('tr[data-status="finished"]', { hasText: 'Worker' }).first();
    await finished.getByText(/finished: run run_…[0-9a-f]{6}.* completed/).waitFor();
    expect(await finished.locator('.explain .short-id').getAttribute('data-id')).toMatch(/^run_[0-9a-f]{32}$/);
    // The Worker's rows only: the coordinator's heartbeat routine fires on the wall clock, and may land mid-test.
    const workerRows = (status: string) => page.locator(`tr[data-status="${status}"]`, { hasText: 'Worker' });
    const before = await wakeups.count();
    const finishedBefore = await workerRows('finished').count();

    // A change made elsewhere arrives through the stream: a new wakeup row, then its run.
    await h.api('POST', `/api/office/routines/${routineId}/fire`, { variables: { topic: 'invoices' } });
    await expect.poll(() => wakeups.count(), { timeout: UI_TIMEOUT }).toBeGreaterThan(before);
    await expect.poll(() => workerRows('finished').count(), { timeout: UI_TIMEOUT }).toBe(finishedBefore + 1);
    await shot('wakeups');

    await nav('Runs');
    const runs = page.locator('table[aria-label="Runs"] tbody tr', { hasText: 'Worker' });
    await expect.poll(() => workerRows('succeeded').count(), { timeout: UI_TIMEOUT }).toBe(2);
    await h.api('POST', `/api/office/routines/${routineId}/fire`, { variables: { topic: 'refunds' } });
    await workerRows('running').waitFor();
    await expect.poll(() => workerRows('succeeded').count(), { timeout: UI_TIMEOUT }).toBe(3);
    expect(await runs.count()).toBe(3);
    await shot('runs');
    await stillTheSamePage();
  });

  it('opens a run on its transcript, then its Result and Prompt tabs', async () => {
    await page.locator('tr[data-status="succeeded"]', { hasText: 'Worker' }).last().getByRole('link').first().click();
    // What the command agent printed, line by line: its last line is its JSON result.
    await page.getByRole('list', { name: 'Transcript' }).locator('li[data-type="line"]', { hasText: '"summary"' }).waitFor();
    await page.getByRole('tab', { name: 'Result' }).click();
    await page.getByLabel('Result JSON').getByText('"summary"').waitFor();
    await page.getByRole('tab', { name: 'Prompt' }).click();
    const prompt = page.getByLabel('Assembled prompt');
    await prompt.getByText('Digest about billing').waitFor();
    await prompt.getByText(/You are Worker/).waitFor();
    await page.getByLabel('Injected summary').waitFor();
    await shot('run-detail-prompt');
  });

  it('toggles a routine off from the list', async () => {
    await nav('Routines');
    const toggle = page.getByRole('switch', { name: 'Enabled: Nightly digest' });
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await expect.poll(async () => (await h.api('GET', `/api/office/routines/${routineId}`)).body.status).toBe('paused');
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await page.locator(`tr[data-routine-id="${routineId}"]`).getByText('paused', { exact: true }).first().waitFor();
    await stillTheSamePage();
  });

  it('moves the highlight of the live state chart while a run is in progress', async () => {
    await nav('Agents');
    await page.getByRole('link', { name: 'Worker', exact: true }).click();
    const chart = page.locator('svg.statechart');
    await chart.waitFor();
    await expect.poll(() => chart.getAttribute('data-current')).toBe('active.idle');
    expect(await page.locator('g[data-state-path="active.idle"]').getAttribute('data-active')).toBe('true');

    await h.api('POST', `/api/office/agents/${workerId}/wake`, { reason: 'browser test' });
    await expect.poll(() => chart.getAttribute('data-current'), { timeout: UI_TIMEOUT }).toBe('active.working');
    expect(await page.locator('g[data-state-path="active.working"]').getAttribute('data-active')).toBe('true');
    expect(await page.locator('g[data-state-path="active.idle"]').getAttribute('data-active')).toBe('false');
    await page.getByTestId('slots').getByText('1 / 1').waitFor();
    await shot('agent-working');

    await expect.poll(() => chart.getAttribute('data-current'), { timeout: UI_TIMEOUT }).toBe('active.idle');
    await page.getByTestId('slots').getByText('0 / 1').waitFor();
    await stillTheSamePage();
  });

  it('shows the empty-state banner for a coordinator with no scheduled routine', async () => {
    const heartbeat = (await h.api('GET', `/api/office/routines?workspace_id=${workspaceId}`)).body
      .find((r: { assignee_agent_instance_id: string }) => r.assignee_agent_instance_id === coordinatorId);
    await nav('Agents');
    await page.getByRole('link', { name: 'Coordinator', exact: true }).click();
    await page.getByRole('heading', { name: /Coordinator/ }).waitFor();
    await page.getByText('Live state chart').waitFor();
    expect(await page.getByTestId('coordinator-empty-state').count()).toBe(0);

    await h.api('PATCH', `/api/office/routines/${heartbeat.id}`, { status: 'paused' });
    const banner = page.getByTestId('coordinator-empty-state');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('This coordinator has no scheduled wake-ups. It will only fire on comments, errors, or manual triggers.');
    expect(await banner.getByRole('link').getAttribute('href')).toBe('/office/routines');
    await shot('agent-coordinator');
  });

  it('clamps the recovery lookback to 1..720 hours in workspace settings', async () => {
    await nav('Settings');
    const input = page.locator('input[name="recovery_lookback_hours"]');
    await expect.poll(() => input.inputValue()).toBe('24');
    await input.fill('1000');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: 720 hours.').waitFor();
    expect(await input.inputValue()).toBe('720');
    expect((await h.api('GET', `/api/office/workspaces/${workspaceId}`)).body.recovery_lookback_hours).toBe(720);
    await shot('settings');
    await stillTheSamePage();
  });
});
