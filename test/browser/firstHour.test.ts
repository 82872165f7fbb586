/**
 * A newcomer's first hour, in real headless Chromium against the real server, with no JSON and no
 * curl: a fresh install opens on Tasks, then a workspace, a Claude Code agent (the replayer of
 * test/fixtures/agents) and its first task, whose run is one click away; a second agent, a command,
 * whose run is watched live; a second workspace, deleted again; a routine in a non-UTC zone whose
 * times say so; a budget that pauses an agent, in the Inbox, then changed and deleted; an agent
 * edited and deleted. One page load for all of it, in a browser whose own zone is neither UTC nor
 * the workspace's, and not one console error.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { PROGRAM_BIN } from '../helpers/agentPrograms.js';
import { FIXTURES, startHarness, type Harness } from '../helpers/harness.js';
import { clickNav, fullShot, launchChromium, loadedOnce, NO_BROWSER, openLive, recordPageErrors, DESKTOP_VIEWPORT } from './chromium.js';

const SHOTS = join(process.cwd(), 'test-results', 'first-hour');
const UI_TIMEOUT = 10_000;
const WORKSPACE_ZONE = 'Europe/Paris';
const BROWSER_ZONE = 'America/New_York';
/** Long enough to open the run page while the session still runs, short enough for a quick suite. */
const BUILDER_RUN_MS = 4000;

let h: Harness;
let browser: Browser;
let page: Page;
let pageErrors: string[] = [];
let workspaceId: string;
let claudeId: string;
let builderId: string;

const shot = (name: string) => fullShot(page, SHOTS, name);
/** The Inbox link carries its count after its name. */
const nav = (label: string) => clickNav(page, new RegExp(`^${label}`));
const stillTheSamePage = async () => expect(await loadedOnce(page)).toBe(true);

/** A time as a clock in `zone` reads it, as the dashboard writes it (without seconds when there are none). */
function inZone(iso: string, zone: string): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit',
  }).formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${zone}`;
}

describe.skipIf(NO_BROWSER)('the first hour, in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: DESKTOP_VIEWPORT, timezoneId: BROWSER_ZONE });
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    pageErrors = recordPageErrors(page);
    await openLive(page, `${h.url}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('opens a fresh install on Tasks, asking for a workspace', async () => {
    const form = page.getByRole('form', { name: 'Create a workspace' });
    await form.waitFor();
    expect(new URL(page.url()).pathname).toBe('/office/tasks');
    await form.locator('input[name="workspace_name"]').fill('First Hour');
    await form.locator('select[name="timezone"]').selectOption(WORKSPACE_ZONE);
    await form.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('form', { name: 'Add an agent' }).waitFor();
    const [workspace] = (await h.api('GET', '/api/office/workspaces')).body;
    expect(workspace).toMatchObject({ name: 'First Hour', timezone: WORKSPACE_ZONE });
    workspaceId = workspace.id;
    // Once, not once per column: the empty board has no columns yet.
    expect(await page.getByText('Nothing here').count()).toBe(1);
  });

  it('adds a Claude Code agent, confirms it, and gives it a first task whose run is one click away', async () => {
    const form = page.getByRole('form', { name: 'Add an agent' });
    expect(await form.locator('select[name="executor_kind"]').inputValue()).toBe('claude_code');
    // The API's own rule, in the form, under its field, before anything is sent.
    await form.getByRole('button', { name: 'Add agent' }).click();
    await form.locator('.field.invalid input[name="agent_name"]').waitFor();
    await form.locator('input[name="agent_name"]').fill('Claude');
    await form.locator('input[name="command"]').fill(join(PROGRAM_BIN, 'claude'));
    await form.getByRole('button', { name: 'Add agent' }).click();

    const next = page.getByRole('status', { name: 'Next steps' });
    await next.getByRole('heading', { name: 'Claude is ready' }).waitFor();
    const [claude] = (await h.api('GET', `/api/office/agents?workspace_id=${workspaceId}`)).body;
    expect(claude).toMatchObject({ name: 'Claude', executor: { kind: 'claude_code', command: join(PROGRAM_BIN, 'claude') } });
    claudeId = claude.id;

    await next.getByRole('button', { name: 'Give Claude a first task' }).click();
    const dialog = page.getByRole('dialog', { name: 'New task' });
    expect(await dialog.locator('select[name="assignee"]').inputValue()).toBe(claudeId);
    await dialog.locator('input[name="title"]').fill('Triage the open issues');
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await next.getByRole('heading', { name: '"Triage the open issues" is on the board' }).waitFor();
    await shot('first-task');

    await next.getByRole('link', { name: 'Watch the run' }).click();
    await page.getByRole('list', { name: 'Transcript' }).locator('li[data-type="assistant"]').getByText('Done: the task is handled.').waitFor();
    await page.getByTestId('run-cost').getByText('$0.00018').waitFor();
    await next.getByRole('button', { name: 'Done' }).click();
    await stillTheSamePage();
  });

  it('adds a second agent, a command, from the Agents page; the list names its replica', async () => {
    await nav('Agents');
    await page.getByRole('button', { name: 'Add an agent' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an agent' });
    await dialog.locator('input[name="agent_name"]').fill('Builder');
    await dialog.locator('select[name="executor_kind"]').selectOption('command');
    await dialog.locator('input[name="command"]').fill(process.execPath);
    await dialog.locator('textarea[name="args"]').fill(join(FIXTURES, 'sleep.mjs'));
    await dialog.getByText('More settings').click();
    await dialog.locator('input[name="cooldown_sec"]').fill('0');
    await dialog.locator('textarea[name="env"]').fill(`FIXTURE_SLEEP_MS=${BUILDER_RUN_MS}\nFIXTURE_COST=2.5`);
    await dialog.getByRole('button', { name: 'Add agent' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = page.locator('table[aria-label="Agents"] tr', { hasText: 'Builder' });
    await row.waitFor();
    builderId = (await row.getAttribute('data-agent-id'))!;
    expect((await h.api('GET', `/api/office/agents/${builderId}`)).body).toMatchObject({
      cooldown_sec: 0, executor: { kind: 'command', command: process.execPath, args: [join(FIXTURES, 'sleep.mjs')], env: { FIXTURE_SLEEP_MS: '********', FIXTURE_COST: '********' } },
    });
    const [replica] = (await h.api('GET', '/api/office/replicas')).body;
    expect(await row.getByTestId('agent-replica-cell').locator('.short-id').getAttribute('data-id')).toBe(replica.id);
    expect(await row.getByTestId('agent-status').textContent()).toBe('idle');
  });

  it('creates a second workspace from the header, deletes it in Settings, and goes back to the first', async () => {
    const menu = page.getByLabel('Workspace', { exact: true });
    await menu.selectOption('__new');
    const dialog = page.getByRole('dialog', { name: 'New workspace' });
    await dialog.locator('input[name="workspace_name"]').fill('Side project');
    await dialog.getByRole('button', { name: 'Create workspace' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('form', { name: 'Add an agent' }).getByText('Side project').waitFor();
    expect((await h.api('GET', '/api/office/workspaces')).body.map((w: { name: string }) => w.name)).toEqual(['First Hour', 'Side project']);

    // It has no agent, so Settings may delete it; the menu then offers the first one alone.
    await nav('Settings');
    await page.getByRole('button', { name: 'Delete workspace' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Side project?' });
    await confirm.getByRole('button', { name: 'Delete workspace' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => menu.locator('option').allTextContents()).toEqual(['First Hour', 'New workspace…']);
    expect((await h.api('GET', '/api/office/workspaces')).body.map((w: { name: string }) => w.name)).toEqual(['First Hour']);
    await menu.selectOption({ label: 'First Hour' });
    await page.getByRole('form', { name: 'Add an agent' }).waitFor({ state: 'detached' });
  });

  it('assigns a task on the board; its card says the run is running, and the run page shows what it prints, live', async () => {
    await nav('Tasks');
    await page.getByRole('button', { name: 'New task' }).click();
    const dialog = page.getByRole('dialog', { name: 'New task' });
    await dialog.locator('input[name="title"]').fill('Build the release');
    await dialog.locator('select[name="assignee"]').selectOption({ label: 'Builder (worker)' });
    await dialog.getByRole('button', { name: 'Create task' }).click();

    const card = page.locator('article.task-card', { hasText: 'Build the release' });
    const running = card.getByTestId('task-run').and(page.locator('[data-status="running"]'));
    await running.waitFor();
    await shot('task-running');
    await running.getByRole('link').click();
    const transcript = page.getByRole('tabpanel');
    // Opened while the session runs: nothing printed yet, then its result line arrives on the stream.
    await transcript.getByText('Nothing printed yet.').waitFor();
    await page.getByRole('list', { name: 'Transcript' }).locator('li[data-type="line"]', { hasText: '"summary"' }).waitFor({ timeout: BUILDER_RUN_MS + UI_TIMEOUT });
    await page.locator('h1').getByText('succeeded').waitFor();
    await stillTheSamePage();

    await nav('Tasks');
    await card.getByTestId('task-run').and(page.locator('[data-status="succeeded"]')).waitFor();
  });

  it('creates a routine in the workspace\'s zone, not UTC, and every time it shows names that zone', async () => {
    await nav('Routines');
    await page.getByRole('button', { name: 'Create Routine' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create Routine' });
    await dialog.locator('input[name="name"]').fill('Morning triage');
    await dialog.locator('select[name="assignee"]').selectOption({ label: 'Claude (worker)' });
    await dialog.locator('input[name="task_title"]').fill('Triage the open issues');
    await dialog.locator('input[name="cron"]').fill('0 9 * * *');
    expect(await dialog.locator('select[name="timezone"]').inputValue()).toBe(WORKSPACE_ZONE);
    await dialog.getByText("The workspace's zone. Choose another for this schedule alone.").waitFor();
    await dialog.getByTestId('cron-preview').getByText(`09:00 ${WORKSPACE_ZONE}`).first().waitFor();
    // The concurrency policy is explained where it is chosen.
    await dialog.locator('select[name="concurrency_policy"]').selectOption('skip_if_active');
    await dialog.getByText('While the last fire is still active, a new fire is skipped.').waitFor();
    await dialog.getByRole('button', { name: 'Create routine' }).click();
    await dialog.waitFor({ state: 'detached' });

    const [routine] = (await h.api('GET', `/api/office/routines?workspace_id=${workspaceId}`)).body
      .filter((r: { name: string }) => r.name === 'Morning triage');
    const [schedule] = routine.triggers;
    expect(schedule).toMatchObject({ kind: 'schedule', timezone: WORKSPACE_ZONE });
    const next = inZone(schedule.next_run_at, WORKSPACE_ZONE);
    expect(next).toMatch(/ 09:00 Europe\/Paris$/);

    const cell = page.locator(`tr[data-routine-id="${routine.id}"]`).getByTestId('next-fire').locator('time');
    await cell.getByText(next).waitFor();
    // The browser's own time of it, on hover.
    expect(await cell.getAttribute('title')).toContain(`your time: ${inZone(schedule.next_run_at, BROWSER_ZONE)}`);

    await page.getByRole('table', { name: 'Routines' }).getByRole('link', { name: 'Morning triage' }).click();
    const trigger = page.locator(`[data-trigger-id="${schedule.id}"]`);
    await trigger.getByTestId('trigger-zone').getByText(`in ${WORKSPACE_ZONE}`).waitFor();
    await trigger.getByTestId('trigger-next').getByText(next).waitFor();
    await trigger.getByTestId('trigger-last-fired').getByText('Fired on its schedule: never').waitFor();
    const pills = await trigger.getByLabel('Next fire times').locator('.pill').allTextContents();
    expect(pills).toHaveLength(5);
    for (const pill of pills) expect(pill).toMatch(/^\d{4}-\d\d-\d\d 09:00 Europe\/Paris$/);
    await page.locator('.card.policies').getByText('While the last fire is still active, a new fire is skipped.').waitFor();
    await shot('routine-zone');
  });

  it('shows a budget that pauses an agent: its spend on Settings, the agent paused, an item in the Inbox', async () => {
    await nav('Settings');
    const form = page.getByRole('form', { name: 'Add a budget' });
    await form.locator('select[name="budget_scope"]').selectOption({ label: 'Agent Builder' });
    await form.locator('input[name="limit_usd"]').fill('2');
    await form.locator('select[name="period"]').selectOption('daily');
    await form.locator('select[name="action_on_exceed"]').selectOption('pause_agent');
    await form.getByRole('button', { name: 'Add budget' }).click();
    await page.locator('li.budget', { hasText: 'Agent Builder' }).getByText('$2.50 of $2.00 today').waitFor();

    // Builder spent $2.50 on its task: its next wakeup is refused and the agent pauses.
    await nav('Agents');
    await page.getByRole('link', { name: 'Builder', exact: true }).click();
    await page.getByRole('button', { name: 'Wake now' }).click();
    await page.getByText(/Paused: agent budget exceeded/).waitFor();
    await page.locator('h1').getByText('paused').waitFor();

    await nav('Inbox');
    const item = page.getByRole('list', { name: 'Open items' }).locator('li.inbox-item', { hasText: 'Builder' });
    await item.waitFor();
    expect(await item.textContent()).toMatch(/budget/i);
    await item.getByText('agent paused', { exact: true }).waitFor();
    await expect.poll(() => page.getByTestId('inbox-count').textContent()).toBe('1');
    await shot('budget-pause-inbox');
  });

  it('changes the budget, with the API\'s own rule shown under its field, and deletes it', async () => {
    await nav('Settings');
    const budget = page.locator('li.budget', { hasText: 'Agent Builder' });
    await budget.getByRole('button', { name: 'Edit' }).click();
    const change = budget.getByRole('form', { name: 'Change the budget' });
    await change.locator('input[name="alert_threshold_pct"]').fill('150');
    await change.getByRole('button', { name: 'Update budget' }).click();
    await change.locator('.field.invalid input[name="alert_threshold_pct"]').waitFor();
    await change.locator('input[name="alert_threshold_pct"]').fill('50');
    await change.locator('input[name="limit_usd"]').fill('5');
    await change.getByRole('button', { name: 'Update budget' }).click();
    await change.waitFor({ state: 'detached' });
    await budget.getByText('$2.50 of $5.00 today').waitFor();
    expect((await h.api('GET', `/api/office/budgets?workspace_id=${workspaceId}`)).body).toMatchObject([{ limit_usd: 5, alert_threshold_pct: 50 }]);

    await budget.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the Agent Builder budget?' });
    await confirm.getByRole('button', { name: 'Delete budget' }).click();
    await budget.waitFor({ state: 'detached' });
    expect((await h.api('GET', `/api/office/budgets?workspace_id=${workspaceId}`)).body).toEqual([]);
  });

  it('edits an agent and deletes it, from its own page', async () => {
    await nav('Agents');
    const row = page.locator(`tr[data-agent-id="${builderId}"]`);
    await row.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Builder' });
    expect(await dialog.locator('textarea[name="env"]').inputValue()).toBe('FIXTURE_SLEEP_MS=********\nFIXTURE_COST=********');
    await dialog.locator('input[name="agent_name"]').fill('Builder two');
    await dialog.getByText('More settings').click();
    await dialog.locator('input[name="max_concurrent_sessions"]').fill('2');
    await dialog.getByRole('button', { name: 'Update agent' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByRole('link', { name: 'Builder two' }).waitFor();
    expect((await h.api('GET', `/api/office/agents/${builderId}`)).body).toMatchObject({
      name: 'Builder two', max_concurrent_sessions: 2, executor: { kind: 'command', env: { FIXTURE_SLEEP_MS: '********', FIXTURE_COST: '********' } },
    });

    await row.getByRole('link', { name: 'Builder two' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Builder two?' });
    await confirm.getByRole('button', { name: 'Delete agent' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    await page.locator(`tr[data-agent-id="${builderId}"]`).waitFor({ state: 'detached' });
    expect((await h.api('GET', `/api/office/agents/${builderId}`)).status).toBe(404);
    const task = (await h.api('GET', `/api/office/tasks?workspace_id=${workspaceId}`)).body.find((t: { title: string }) => t.title === 'Build the release');
    expect(task.assignee_agent_instance_id).toBeNull();
    expect((await h.api('GET', `/api/office/agents?workspace_id=${workspaceId}`)).body.map((a: { id: string }) => a.id)).toEqual([claudeId]);
    await stillTheSamePage();
  });

  it('logged no console errors on any page of it', () => {
    expect(pageErrors).toEqual([]);
  });
});
