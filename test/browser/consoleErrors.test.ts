/**
 * No console errors on any page (issue 17). Real Chromium against the real server with
 * OFFICE_API_TOKEN set: the sign-in form, the empty state of a fresh install, then every page the
 * navigation bar links to (read from the bar itself, so a page added there is covered without
 * touching this file) and every detail page, each opened with a full page load. Any console error
 * (a failed request included: Chromium logs it as one) or uncaught exception fails the test.
 * Detail pages are listed in DETAIL_PAGES: add a new one there.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { fixtureAgent, startHarness, type Harness } from '../helpers/harness.js';
import { launchChromium, NO_BROWSER, recordPageErrors } from './chromium.js';

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

const api = async (method: string, path: string, body?: unknown) => {
  const response = await h.api(method, path, body, BEARER);
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
};

/** A page is settled when the stream is live and nothing on it is still loading. */
async function settled() {
  await page.getByTestId('live-indicator').and(page.getByText('live')).waitFor();
  await expect.poll(() => page.locator('main').getByText(/^Loading\b/).count(), { timeout: UI_TIMEOUT }).toBe(0);
}

async function open(path: string, shot: string) {
  await page.goto(`${h.url}${path}`);
  await settled();
  await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
}

/** What the seed made: the ids the detail pages need. */
interface Seeded {
  taskId: string;
  routineId: string;
  runId: string;
  workerId: string;
  coordinatorId: string;
}

/** A workspace with something on every page: agents, tasks in several states, an approval, a budget, a routine, finished and failed runs. */
async function seed(): Promise<Seeded> {
  const ws = await api('POST', '/api/office/workspaces', { name: 'Acme', timezone: 'Europe/Paris' });
  const coordinator = await api('POST', '/api/office/agents', { workspace_id: ws.id, name: 'Coordinator', role: 'coordinator', cooldown_sec: 0, executor: fixtureAgent('succeed.mjs') });
  const worker = await api('POST', '/api/office/agents', { workspace_id: ws.id, name: 'Worker', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false, executor: fixtureAgent('succeed.mjs') });
  const failing = await api('POST', '/api/office/agents', { workspace_id: ws.id, name: 'Failing', role: 'worker', cooldown_sec: 0, skip_idle_wakeups: false, executor: fixtureAgent('fail.mjs') });
  const task = await api('POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Write the digest', assignee_agent_instance_id: worker.id, requires_approval: true });
  await api('POST', `/api/office/tasks/${task.id}/comments`, { body: 'Please include refunds.', author_type: 'user', author_id: 'admin' });
  const blocked = await api('POST', '/api/office/tasks', { workspace_id: ws.id, title: 'Publish the digest', blocked_by: [task.id] });
  await api('POST', `/api/office/tasks/${blocked.id}/move`, { state: 'BLOCKED' });
  await api('POST', '/api/office/approvals', { task_id: task.id, requested_by_agent_id: worker.id, title: 'Ship the digest?' });
  await api('POST', '/api/office/budgets', { scope: 'workspace', scope_id: ws.id, limit_usd: 10, period: 'daily', action_on_exceed: 'warn' });
  const routine = await api('POST', '/api/office/routines', {
    workspace_id: ws.id, name: 'Nightly digest', assignee_agent_instance_id: worker.id, task_template: { title: 'Digest' },
    triggers: [{ kind: 'schedule', cron_expression: '0 3 * * *' }, { kind: 'manual' }],
  });
  await api('POST', `/api/office/routines/${routine.id}/fire`, {});
  await api('POST', `/api/office/agents/${failing.id}/wake`, { reason: 'fails' });
  const run = await h.waitFor(async () => (await api('GET', `/api/office/runs?agent_id=${worker.id}`)).find((r: { status: string }) => r.status === 'succeeded'), 'a finished run');
  await h.waitFor(async () => (await api('GET', `/api/office/runs?agent_id=${failing.id}`)).some((r: { status: string }) => r.status === 'failed'), 'a failed run');
  return { taskId: task.id, routineId: routine.id, runId: run.id, workerId: worker.id, coordinatorId: coordinator.id };
}

/** Pages that no navigation link reaches: a thing's own page. */
const DETAIL_PAGES = (s: Seeded): Array<[string, string]> => [
  [`/office/tasks/${s.taskId}`, 'task'],
  [`/office/routines/${s.routineId}`, 'routine'],
  [`/office/runs/${s.runId}`, 'run'],
  [`/office/agents/${s.workerId}`, 'agent-worker'],
  [`/office/agents/${s.coordinatorId}`, 'agent-coordinator'],
];

describe.skipIf(NO_BROWSER)('every dashboard page in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    h = await startHarness({ OFFICE_API_TOKEN: TOKEN });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
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

    const seeded = await seed();
    await open('/office/routines', 'first');
    const navigation = await page.locator('header.top nav a').evaluateAll((links) => links.map((link) => link.getAttribute('href') ?? ''));
    expect(navigation.length).toBeGreaterThanOrEqual(8);
    const pages: Array<[string, string]> = [...navigation.map((path): [string, string] => [path, path.split('/').pop()!]), ...DETAIL_PAGES(seeded)];
    for (const [path, shot] of pages) await open(path, shot);

    expect(errors).toEqual([]);
  }, WALK_TIMEOUT_MS);
});
