/**
 * The agent programs in the dashboard, in real headless Chromium against the real server: "Add an
 * agent" with Claude Code and no JSON, a run's usage, cost and transcript (live while it runs), and
 * the quotas page. The programs are the replayers of test/fixtures/agents.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDashboard } from '../../scripts/ensure-dashboard.mjs';
import { PROGRAM_BIN, programExecutor } from '../helpers/agentPrograms.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { launchChromium, NO_BROWSER, recordPageErrors } from './chromium.js';

const UI_TIMEOUT = 10_000;

let h: Harness;
let browser: Browser;
let page: Page;
let errors: string[];
let workspaceId: string;

const runsOf = async (agentId: string) => (await h.api('GET', `/api/office/runs?agent_id=${agentId}`)).body as any[];

describe.skipIf(NO_BROWSER)('agent programs in Chromium', () => {
  beforeAll(async () => {
    await ensureDashboard({ log: () => {} });
    h = await startHarness();
    browser = await launchChromium();
    page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    errors = recordPageErrors(page);
    workspaceId = (await h.api('POST', '/api/office/workspaces', { name: 'Programs' })).body.id;
  });

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  it('"Add an agent" with Claude Code needs no JSON: the program, a command and a model; its run page shows usage, cost and the transcript', async () => {
    await page.goto(`${h.url}/office/tasks`);
    const form = page.getByRole('form', { name: 'Add an agent' });
    await form.waitFor();
    expect(await form.locator('select[name="executor_kind"]').inputValue()).toBe('claude_code');
    await form.locator('input[name="agent_name"]').fill('Claude');
    await form.locator('input[name="command"]').fill(join(PROGRAM_BIN, 'claude'));
    await form.locator('input[name="model"]').fill('claude-opus-5-5');
    await form.getByRole('button', { name: 'Add agent' }).click();
    await form.waitFor({ state: 'detached' });
    const [agent] = (await h.api('GET', `/api/office/agents?workspace_id=${workspaceId}`)).body;
    expect(agent).toMatchObject({ name: 'Claude', executor: { kind: 'claude_code', command: join(PROGRAM_BIN, 'claude'), model: 'claude-opus-5-5' } });

    expect((await h.api('POST', `/api/office/agents/${agent.id}/wake`, { reason: 'hello' })).status).toBe(202);
    const run = await h.waitFor(async () => (await runsOf(agent.id)).find((r) => r.status === 'succeeded'), 'the Claude Code run');
    await page.goto(`${h.url}/office/runs/${run.id}`);
    await page.getByTestId('run-cost').getByText('$0.00018').waitFor();
    expect(await page.getByTestId('run-usage').textContent()).toBe('21 in (7 cached) · 6 out');
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.locator('li[data-type="assistant"]').getByText('Done: the task is handled.').waitFor();
    expect(await transcript.locator('li').count()).toBe(3);
  });

  it('a running session\'s transcript appears on its run page as the session prints it', async () => {
    const record = join(h.dir, 'record');
    const agentId = (await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Stalled', role: 'worker', cooldown_sec: 0,
      executor: programExecutor('claude_code', { record, scenario: 'killed_mid_stream', executor: { env: { ANTHROPIC_API_KEY: 'stalled' } } }),
    })).body.id;
    await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'stall' });
    const run = await h.waitFor(async () => (await runsOf(agentId)).find((r) => r.status === 'running'), 'the stalled run to start');
    await page.goto(`${h.url}/office/runs/${run.id}`);
    await page.getByRole('list', { name: 'Transcript' }).locator('li[data-type="system"]').waitFor();
    expect((await h.api('POST', `/api/office/runs/${run.id}/cancel`, { reason: 'test over' })).status).toBe(200);
  });

  it('the quotas page lists an exhausted quota with the agents it holds', async () => {
    const record = join(h.dir, 'record');
    const agentId = (await h.api('POST', '/api/office/agents', {
      workspace_id: workspaceId, name: 'Limited', role: 'worker', cooldown_sec: 0,
      executor: programExecutor('claude_code', { record, scenario: 'rate_limit_event_rejected', executor: { env: { CLAUDE_CODE_OAUTH_TOKEN: 'subscription' } } }),
    })).body.id;
    await h.api('POST', `/api/office/agents/${agentId}/wake`, { reason: 'limit' });
    await h.waitFor(async () => ((await h.api('GET', '/api/office/quotas')).body as any[]).length > 0, 'the quota to be exhausted');
    await page.locator('header.top nav').getByRole('link', { name: 'Quotas', exact: true }).click();
    const row = page.getByRole('table', { name: 'Quotas' }).locator('tr', { hasText: 'exhausted' });
    await row.getByRole('link', { name: 'Limited' }).waitFor();
    expect(await row.textContent()).toContain("You've hit your 5-hour limit");
    expect(errors).toEqual([]);
  });
});
