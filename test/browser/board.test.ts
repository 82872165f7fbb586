/**
 * The dashboard's office pages in real headless Chromium against the real server (temp SQLite,
 * real child-process agents, the built bundle): the empty state, the tasks board, the inbox, the
 * activity feed and the budgets. One browser and one server for the file; the tests run in order
 * and share one page, starting from an install with no workspace at all.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { launchChromium, NO_BROWSER, recordPageErrors } from './chromium.js';

const SHOTS = join(process.cwd(), 'test-results', 'board');
const UI_TIMEOUT = 10_000;

let h: Harness;
let browser: Browser;
let page: Page;
let workspaceId: string;
let agentId: string;
let pageErrors: string[] = [];

async function shot(name: string) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Navigates inside the app (a click on the nav bar), never reloading the page. */
async function nav(label: string) {
  await page.locator('header.top nav').getByRole('link', { name: new RegExp(`^${label}`) }).click();
}

async function wakeupsOfTask(taskId: string): Promise<Array<{ agent_id: string; reason: string; source: string; status: string }>> {
  return (await h.api('GET', `/api/office/wakeups?task_id=${taskId}`)).body;
}

describe.skipIf(NO_BROWSER)('office pages in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    pageErrors = recordPageErrors(page);
    await page.goto(`${h.url}/office/tasks`);
    await page.getByTestId('live-indicator').and(page.getByText('live')).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('creates a workspace and then an agent from the empty state, with no curl', async () => {
    const createWorkspace = page.getByRole('form', { name: 'Create a workspace' });
    await createWorkspace.waitFor();
    // No name: the API's own schema rejects it in the browser, under the field, before anything is sent.
    await createWorkspace.getByRole('button', { name: 'Create workspace' }).click();
    await createWorkspace.locator('.field.invalid input[name="workspace_name"]').waitFor();
    await createWorkspace.locator('input[name="workspace_name"]').fill('Fresh Office');
    await createWorkspace.locator('select[name="timezone"]').selectOption('Europe/Paris');
    await createWorkspace.getByRole('button', { name: 'Create workspace' }).click();

    const addAgent = page.getByRole('form', { name: 'Add an agent' });
    await addAgent.waitFor();
    const executor = fixtureAgent('succeed.mjs');
    await addAgent.locator('input[name="agent_name"]').fill('Builder');
    await addAgent.locator('select[name="role"]').selectOption('worker');
    await addAgent.locator('select[name="executor_kind"]').selectOption('command');
    await addAgent.locator('input[name="command"]').fill(executor.kind === 'command' ? executor.command : '');
    await addAgent.locator('textarea[name="args"]').fill(executor.kind === 'command' ? executor.args!.join('\n') : '');
    await shot('add-agent');
    await addAgent.getByRole('button', { name: 'Add agent' }).click();
    await addAgent.waitFor({ state: 'detached' });

    const workspaces = (await h.api('GET', '/api/office/workspaces')).body;
    expect(workspaces).toMatchObject([{ name: 'Fresh Office', timezone: 'Europe/Paris' }]);
    workspaceId = workspaces[0].id;
    const agents = (await h.api('GET', `/api/office/agents?workspace_id=${workspaceId}`)).body;
    expect(agents).toMatchObject([{ name: 'Builder', role: 'worker', executor: { kind: 'command', command: process.execPath, args: executor.kind === 'command' ? executor.args : [] } }]);
    agentId = agents[0].id;
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  });

  it('moves a task across the board through the UI, which wakes its assignee', async () => {
    await page.getByRole('button', { name: 'New task' }).click();
    const dialog = page.getByRole('dialog', { name: 'New task' });
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await dialog.locator('.field.invalid input[name="title"]').waitFor();
    await dialog.locator('input[name="title"]').fill('Write the launch post');
    await dialog.locator('select[name="assignee"]').selectOption({ label: 'Builder (worker)' });
    await dialog.getByRole('button', { name: 'Create task' }).click();
    await dialog.waitFor({ state: 'detached' });

    const card = page.locator('article.task-card', { hasText: 'Write the launch post' });
    await expect.poll(() => card.getAttribute('data-state')).toBe('TODO');
    const taskId = (await card.getAttribute('data-task-id'))!;
    expect(await page.locator('[data-column="TODO"]').locator(`[data-task-id="${taskId}"]`).count()).toBe(1);
    // The assignment woke the assignee; its wakeup's why shows on the card once it is decided.
    await card.getByTestId('last-wakeup').waitFor();

    await card.locator('select[name="move"]').selectOption('IN_PROGRESS');
    await page.locator('[data-column="IN_PROGRESS"]').locator(`[data-task-id="${taskId}"]`).waitFor();
    expect((await h.api('GET', `/api/office/tasks/${taskId}`)).body.state).toBe('IN_PROGRESS');
    const moveWake = await h.waitFor(async () =>
      (await wakeupsOfTask(taskId)).find((w) => w.reason === 'moved to In Progress'), 'the wakeup of the move');
    expect(moveWake).toMatchObject({ agent_id: agentId, source: 'task_assigned' });

    // Dragging a card onto a column is the same move.
    await card.dragTo(page.locator('[data-column="IN_REVIEW"]'));
    await page.locator('[data-column="IN_REVIEW"]').locator(`[data-task-id="${taskId}"]`).waitFor();
    expect((await h.api('GET', `/api/office/tasks/${taskId}`)).body.state).toBe('IN_REVIEW');

    // Assigning from the card is a PATCH of the assignee.
    const assignee = card.locator('select[name="assignee"]');
    await assignee.selectOption('');
    await expect.poll(async () => (await h.api('GET', `/api/office/tasks/${taskId}`)).body.assignee_agent_instance_id).toBeNull();
    await expect.poll(() => assignee.isEnabled()).toBe(true);
    await assignee.selectOption({ label: 'Builder' });
    await expect.poll(async () => (await h.api('GET', `/api/office/tasks/${taskId}`)).body.assignee_agent_instance_id).toBe(agentId);
    await shot('tasks-board');
  });

  it('comments on a task from its page, which lists its comments, wakeups and runs', async () => {
    await page.getByRole('link', { name: 'Write the launch post' }).click();
    await page.getByRole('heading', { name: /Write the launch post/ }).waitFor();
    await page.getByLabel('Comment', { exact: true }).fill('Mention the new board, please.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.getByRole('list', { name: 'Comments' }).getByText('Mention the new board, please.').waitFor();
    // Signed with the token the person acts as: the admin, with no OFFICE_API_TOKEN set.
    const taskId = new URL(page.url()).pathname.split('/').pop();
    expect((await h.api('GET', `/api/office/tasks/${taskId}/comments`)).body).toMatchObject([{ author_type: 'user', author_id: 'admin', body: 'Mention the new board, please.' }]);
    await page.getByRole('list', { name: 'Task wakeups' }).getByText(/task_assigned/).first().waitFor();
    await page.getByRole('list', { name: 'Task runs' }).getByRole('link').first().waitFor();
    await shot('task-page');
  });

  it('shows routine tasks only behind the toggle', async () => {
    const routine = await h.api('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Weekly report', assignee_agent_instance_id: agentId,
      task_template: { title: 'Weekly report task' }, triggers: [{ kind: 'manual' }],
    });
    expect(routine.status).toBe(201);
    expect((await h.api('POST', `/api/office/routines/${routine.body.id}/fire`, {})).status).toBe(202);
    await nav('Tasks');
    await page.locator('article.task-card', { hasText: 'Write the launch post' }).waitFor();
    expect(await page.locator('article.task-card', { hasText: 'Weekly report task' }).count()).toBe(0);
    await page.getByLabel('Routine tasks').check();
    await page.locator('article.task-card', { hasText: 'Weekly report task' }).waitFor();
    await page.getByLabel('Routine tasks').uncheck();
    await page.locator('article.task-card', { hasText: 'Weekly report task' }).waitFor({ state: 'detached' });
  });

  it('follows changes made elsewhere (another person, an agent, the CLI) without a reload', async () => {
    const task = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Made through the API' });
    const card = page.locator(`[data-column="TODO"] [data-task-id="${task.body.id}"]`);
    await card.waitFor();
    await h.api('POST', `/api/office/tasks/${task.body.id}/move`, { state: 'BLOCKED' });
    await page.locator(`[data-column="BLOCKED"] [data-task-id="${task.body.id}"]`).waitFor();
    await h.api('POST', `/api/office/tasks/${task.body.id}/move`, { state: 'CANCELLED' });
    await page.locator(`[data-task-id="${task.body.id}"]`).waitFor({ state: 'detached' });
  });

  it('approves from the inbox, which moves the task to DONE; the navigation counts open items', async () => {
    const task = await h.api('POST', '/api/office/tasks', {
      workspace_id: workspaceId, title: 'Ship the release', assignee_agent_instance_id: agentId, requires_approval: true,
    });
    expect((await h.api('POST', `/api/office/tasks/${task.body.id}/move`, { state: 'DONE' })).body.state).toBe('IN_REVIEW');

    await nav('Inbox');
    const item = page.locator('li.inbox-item[data-kind="approval"]', { hasText: 'Approve: Ship the release' });
    await item.waitFor();
    await expect.poll(() => page.getByTestId('inbox-count').textContent()).toBe('1');
    await item.getByLabel(/Note on/).fill('Looks good.');
    await shot('inbox');
    await item.getByRole('button', { name: 'Approve' }).click();

    await expect.poll(async () => (await h.api('GET', `/api/office/tasks/${task.body.id}`)).body.state).toBe('DONE');
    await page.getByRole('list', { name: 'Open items' }).waitFor({ state: 'detached' });
    await page.getByTestId('inbox-count').waitFor({ state: 'detached' });
    const approvals = (await h.api('GET', `/api/office/inbox?workspace_id=${workspaceId}`)).body;
    expect(approvals.find((i: { title: string }) => i.title === 'Approve: Ship the release').status).toBe('resolved');
  });

  it('rejects from the inbox with a note, which sends the task back to IN_PROGRESS', async () => {
    const task = await h.api('POST', '/api/office/tasks', {
      workspace_id: workspaceId, title: 'Rename the product', assignee_agent_instance_id: agentId, requires_approval: true,
    });
    await h.api('POST', `/api/office/tasks/${task.body.id}/move`, { state: 'DONE' });
    const item = page.locator('li.inbox-item[data-kind="approval"]', { hasText: 'Approve: Rename the product' });
    await item.waitFor({ timeout: UI_TIMEOUT });
    await item.getByLabel(/Note on/).fill('Not this name.');
    await item.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(async () => (await h.api('GET', `/api/office/tasks/${task.body.id}`)).body.state).toBe('IN_PROGRESS');
    const approval = (await h.api('GET', `/api/office/inbox?workspace_id=${workspaceId}`)).body
      .find((i: { title: string }) => i.title === 'Approve: Rename the product');
    expect((await h.api('GET', `/api/office/approvals/${approval.ref_id}`)).body).toMatchObject({ status: 'rejected', decision_note: 'Not this name.' });
  });

  it('lists an agent\'s error in the inbox once its retries are spent, with its failed run', async () => {
    const breaker = await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Breaker', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('fail.mjs'),
    });
    await h.api('POST', `/api/office/agents/${breaker.body.id}/wake`, { reason: 'try it' });
    const item = page.locator('li.inbox-item[data-kind="agent.error"]', { hasText: 'Breaker failed after 4 retries' });
    await item.waitFor({ timeout: 20_000 });
    await item.getByText('connection timed out after 30s').waitFor();
    await expect.poll(() => page.getByTestId('inbox-count').textContent()).toBe('1');
    const runId = (await h.api('GET', `/api/office/runs?agent_id=${breaker.body.id}&limit=1`)).body[0].id;
    expect(await item.getByRole('link', { name: 'failed run' }).getAttribute('href')).toBe(`/office/runs/${runId}`);

    await item.getByRole('button', { name: 'Mark resolved' }).click();
    await page.getByTestId('inbox-count').waitFor({ state: 'detached' });
    const resolved = (await h.api('GET', `/api/office/inbox?workspace_id=${workspaceId}`)).body.find((i: { kind: string }) => i.kind === 'agent.error');
    expect(resolved.status).toBe('resolved');
    await page.locator(`ul[aria-label="Resolved items"] [data-inbox-id="${resolved.id}"]`).waitFor({ state: 'attached' });
  }, 30_000);

  it('updates the activity feed live when a wakeup is skipped, and filters it by code and agent', async () => {
    const idler = await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Idler', role: 'worker', executor: fixtureAgent('succeed.mjs'),
    });
    const blocker = await h.api('POST', '/api/office/tasks', { workspace_id: workspaceId, title: 'Pick a date' });
    await nav('Activity');
    const feed = page.getByRole('table', { name: 'Activity' });
    await feed.waitFor();
    const skipped = feed.locator('tr[data-code="wakeup_waiting_on_blockers"]');
    expect(await skipped.count()).toBe(0);

    // Assigned while its blocker is open: the assignee's wakeup is skipped (it waits for the blocker).
    const blocked = await h.api('POST', '/api/office/tasks', {
      workspace_id: workspaceId, title: 'Announce the date', assignee_agent_instance_id: idler.body.id, blocked_by: [blocker.body.id],
    });
    expect(blocked.status).toBe(201);
    await skipped.waitFor();
    expect((await wakeupsOfTask(blocked.body.id)).map((w) => w.status)).toEqual(['skipped']);
    expect(await skipped.getByRole('link', { name: 'Idler' }).count()).toBe(1);
    await shot('activity');

    await page.locator('select[name="code"]').selectOption('wakeup_waiting_on_blockers');
    // Polled as a whole: while the filtered feed loads, the table is briefly not there at all.
    await expect.poll(async () => {
      const codes = await feed.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-code')));
      return codes.length > 0 && codes.every((code) => code === 'wakeup_waiting_on_blockers');
    }).toBe(true);
    await page.locator('select[name="code"]').selectOption('');
    await page.locator('select[name="agent_id"]').selectOption({ label: 'Idler' });
    await expect.poll(async () => new Set(await feed.locator('tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['Idler']));
    expect(new URL(page.url()).searchParams.get('agent_id')).toBe(idler.body.id);
    await page.getByLabel('Unattended only').check();
    await page.getByText('No activity matches.').waitFor();

    // A cron fire is unattended: its entries, and only those, pass the filter.
    const cron = await h.api('POST', '/api/office/routines', {
      workspace_id: workspaceId, name: 'Every second', assignee_agent_instance_id: idler.body.id, triggers: [{ kind: 'schedule', cron_expression: '* * * * * *' }],
    });
    expect(cron.status).toBe(201);
    const unattended = await h.waitFor(async () => {
      const entries = (await h.api('GET', `/api/office/activity?workspace_id=${workspaceId}&agent_id=${idler.body.id}&unattended=true`)).body;
      return entries.length > 0 ? entries : null;
    }, 'an unattended activity entry');
    expect((await h.api('PATCH', `/api/office/routines/${cron.body.id}`, { status: 'paused' })).status).toBe(200);
    await feed.locator(`tr[data-activity-id="${unattended[0].id}"]`).waitFor();
    const rows = feed.locator('tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    expect(await rows.count()).toBe(await feed.locator('tbody tr', { hasText: 'unattended' }).count());

    // The skipped wakeup's task names its blocker by title and state.
    await page.getByLabel('Unattended only').uncheck();
    await skipped.first().getByRole('link', { name: 'task' }).click();
    await page.getByRole('heading', { name: /Announce the date/ }).waitFor();
    await page.getByTestId('blocked-by').getByRole('link', { name: 'Pick a date (To do)' }).waitFor();
  });

  it('draws each budget\'s spend against its limit and alert threshold on the Settings page', async () => {
    const spender = await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Spender', role: 'worker', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs', { FIXTURE_COST: '2.5' }),
    });
    await h.api('POST', '/api/office/budgets', { scope: 'agent', scope_id: spender.body.id, limit_usd: 10, period: 'monthly', action_on_exceed: 'warn', alert_threshold_pct: 75 });
    const wake = await h.api('POST', `/api/office/agents/${spender.body.id}/wake`, { reason: 'spend some' });
    await h.waitFor(async () => (await h.api('GET', `/api/office/wakeups/${wake.body.wakeup.id}`)).body.status === 'finished', 'the costly run');

    await nav('Settings');
    const budget = page.locator('li.budget', { hasText: 'Agent Spender' });
    await budget.getByTestId('budget-spend').getByText('$2.50 of $10.00 this month').waitFor();
    expect(await budget.locator('.fill').getAttribute('style')).toContain('width: 25%');
    expect(await budget.getByTestId('budget-threshold').getAttribute('style')).toContain('left: 75%');
    expect(await budget.getByRole('meter').getAttribute('aria-valuenow')).toBe('2.5');

    await page.locator('input[name="limit_usd"]').fill('50');
    await page.locator('select[name="period"]').selectOption('daily');
    await page.getByRole('button', { name: 'Add budget' }).click();
    await page.locator('li.budget', { hasText: 'Workspace' }).getByText('$2.50 of $50.00 today').waitFor();
    await shot('settings-budgets');
  });

  it('logged no console errors on these pages', () => {
    expect(pageErrors).toEqual([]);
  });
});
