/**
 * `npm run demo` (office-scheduler demo) as a newcomer runs it, on a database that already holds
 * another workspace: the real bin in a child process. Its board has a task in every column, and
 * the link it prints names the demo workspace, whichever the dashboard would open first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createScheduler } from '../../src/scheduler.js';
import { CLI_BIN } from '../helpers/cli.js';
import { request, waitFor } from '../helpers/harness.js';

const dir = mkdtempSync(join(tmpdir(), 'office-demo-'));
const dbPath = join(dir, 'demo.db');
const running: ChildProcess[] = [];

interface Demo { url: string; output: () => string; stop: () => Promise<number | null> }

async function startDemo(): Promise<Demo> {
  const child = spawn(process.execPath, [CLI_BIN, 'demo'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, OFFICE_DB: dbPath, OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await waitFor(() => output.includes('Demo ready') || child.exitCode !== null, 'the demo to say it is ready', 60_000);
  const url = /listening on (\S+)/.exec(output)?.[1];
  if (!url) throw new Error(`the demo did not start:\n${output}`);
  return { url, output: () => output, stop: () => { child.kill('SIGINT'); return exited; } };
}

beforeAll(async () => {
  // Someone's own workspace, made before the demo's: the dashboard would open it first.
  const scheduler = await createScheduler({ config: loadConfig({ OFFICE_DB: dbPath, OFFICE_PORT: '0', OFFICE_LOG_LEVEL: 'silent' }) });
  const { url } = await scheduler.start();
  await request(url!, 'POST', '/api/office/workspaces', { name: 'Acme' });
  await scheduler.stop();
});

afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

it('makes a board with a task in every column, prints a link to the demo workspace, and makes nothing twice on its next start', async () => {
  const demo = await startDemo();
  const workspaces = (await request(demo.url, 'GET', '/api/office/workspaces')).body as { id: string; name: string }[];
  expect(workspaces.map((w) => w.name)).toEqual(['Acme', 'Demo workspace']);
  const demoWorkspace = workspaces[1]!.id;
  expect(demo.output()).toContain(`Dashboard: ${demo.url}/office/tasks?workspace=${demoWorkspace}`);
  expect(demo.output()).toContain('a board of 6 tasks');

  const states = (url: string) => request(url, 'GET', `/api/office/tasks?workspace_id=${demoWorkspace}`)
    .then(({ body }) => (body as { title: string; state: string }[]).map((t) => `${t.state} ${t.title}`).sort());
  // The worker's runs take two of them to DONE and IN_REVIEW (its approval pending).
  const board = await waitFor(async () => {
    const now = await states(demo.url);
    return now.some((t) => t.startsWith('IN_REVIEW')) && now.some((t) => t.startsWith('DONE')) && now;
  }, 'the worker to finish its two tasks', 30_000);
  expect(board).toEqual([
    'BLOCKED Send the digest to subscribers',
    'DONE Update the FAQ',
    "IN_PROGRESS Summarise this week's support tickets",
    'IN_REVIEW Publish the 2.4 release notes',
    'TODO Draft the Q3 customer digest',
    'TODO Pick a cover image',
  ]);
  expect(await demo.stop()).toBe(0);

  const again = await startDemo();
  expect(again.output()).toContain('(reusing the demo workspace)');
  expect(await states(again.url)).toEqual(board);
  expect(await again.stop()).toBe(0);
}, 120_000);
