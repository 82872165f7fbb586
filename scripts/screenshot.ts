/**
 * `npm run screenshot`: writes docs/dashboard.png, the README's picture of the dashboard: the
 * Tasks board of a small workspace. A scheduler of its own (a temp SQLite file, a free port), a few
 * agents whose runs succeed at once, tasks in every column, then the board in headless Chromium
 * (Debian's `chromium`, as the browser tests use). Nothing is left running or on disk but the PNG.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { createScheduler } from '../src/scheduler.js';
import { ensureDashboard } from './ensure-dashboard.mjs';

const OUTPUT = fileURLToPath(new URL('../docs/dashboard.png', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** An agent that reads its prompt and answers with a summary: every run succeeds, and no task moves by itself. */
const AGENT = {
  kind: 'command', command: process.execPath, timeout_sec: 60,
  args: ['-e', "process.stdin.resume(); process.stdin.on('end', () => console.log(JSON.stringify({ summary: 'Read the task and left a plan', cost_usd: 0.0042 })));"],
};

type Api = <T = { id: string }>(method: string, path: string, body?: unknown) => Promise<T>;

async function seed(api: Api): Promise<void> {
  const ws = await api('POST', '/api/office/workspaces', { name: 'Acme', timezone: 'Europe/Paris' });
  const agent = (name: string, role: string) => api('POST', '/api/office/agents', { workspace_id: ws.id, name, role, executor: AGENT, cooldown_sec: 0 });
  await agent('Coordinator', 'coordinator');
  const writer = await agent('Writer', 'worker');
  const researcher = await agent('Researcher', 'specialist');
  const reviewer = await agent('Reviewer', 'specialist');
  const task = (title: string, extra: Record<string, unknown> = {}) => api('POST', '/api/office/tasks', { workspace_id: ws.id, title, ...extra });
  const move = (id: string, state: string) => api('POST', `/api/office/tasks/${id}/move`, { state });

  const draft = await task('Draft the Q3 customer digest', { assignee_agent_instance_id: writer.id, description: 'Two pages, plain words.' });
  await task('Collect refund numbers for September', { assignee_agent_instance_id: researcher.id });
  await task('Pick a cover image');
  const tickets = await task('Summarise this week\'s support tickets', { assignee_agent_instance_id: researcher.id });
  await move(tickets.id, 'IN_PROGRESS');
  const notes = await task('Publish the 2.4 release notes', { assignee_agent_instance_id: reviewer.id, requires_approval: true });
  await move(notes.id, 'DONE');
  const send = await task('Send the digest to subscribers', { assignee_agent_instance_id: writer.id, blocked_by: [draft.id] });
  await move(send.id, 'BLOCKED');
  const nightly = await task('Set up the nightly metrics routine', { assignee_agent_instance_id: writer.id });
  await move(nightly.id, 'DONE');
  const faq = await task('Update the FAQ', { assignee_agent_instance_id: reviewer.id });
  await move(faq.id, 'DONE');
}

/** Waits until no wakeup is queued or running, so every card shows how its last wakeup ended. */
async function settle(api: Api): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const open = await api<Array<{ status: string }>>('GET', '/api/office/wakeups');
    if (open.length > 0 && open.every((w) => !['queued', 'claimed', 'scheduled_retry'].includes(w.status))) return;
    if (Date.now() > deadline) throw new Error('the seeded wakeups did not end within 60 s');
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
    const api: Api = async (method, path, body) => {
      const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    await seed(api);
    await settle(api);
    const page = await browser.newPage({ viewport: { width: 1280, height: 540 }, deviceScaleFactor: 1 });
    await page.goto(`${url}/office/tasks`);
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
